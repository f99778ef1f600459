/* Hostile: a macro that expands to 2^32 tokens grows the compiler without bound. */
#define A0 x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
#define A1 A0, A0, A0, A0, A0, A0, A0, A0, A0, A0, A0, A0, A0, A0, A0, A0
#define A2 A1, A1, A1, A1, A1, A1, A1, A1, A1, A1, A1, A1, A1, A1, A1, A1
#define A3 A2, A2, A2, A2, A2, A2, A2, A2, A2, A2, A2, A2, A2, A2, A2, A2
#define A4 A3, A3, A3, A3, A3, A3, A3, A3, A3, A3, A3, A3, A3, A3, A3, A3
#define A5 A4, A4, A4, A4, A4, A4, A4, A4, A4, A4, A4, A4, A4, A4, A4, A4
#define A6 A5, A5, A5, A5, A5, A5, A5, A5, A5, A5, A5, A5, A5, A5, A5, A5
#define A7 A6, A6, A6, A6, A6, A6, A6, A6, A6, A6, A6, A6, A6, A6, A6, A6
enum { x };
int bomb[] = {A7};
