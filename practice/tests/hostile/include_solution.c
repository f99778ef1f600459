/* Hostile: takes the reference answer by #include, as the exercise folder sits beside
 * the learner's file; the include path holds only the public header now. */
#include ".solution/rmsnorm.c"
