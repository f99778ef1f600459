/* Hostile: an #include of a FIFO nobody writes (@FIFO@, made by the test) would block
 * the compiler for ever. */
#include "@FIFO@"
