/* Hostile: the reference answer by its absolute path (@PRACTICE@ is filled in by the
 * test); the confined compiler cannot read it. */
#include "@PRACTICE@/231-rmsnorm/.solution/rmsnorm.c"
