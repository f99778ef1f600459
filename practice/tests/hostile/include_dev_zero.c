/* Hostile: an #include of an endless file. */
#include "/dev/zero"
