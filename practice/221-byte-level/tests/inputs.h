/* inputs.h — written once by
 *     /usr/bin/python3 practice/221-byte-level/tests/make_expected.py
 * (Debian's python3-torch, torch 1.13.0a0). Do not edit: run the command again.
 *
 * The byte → code point table (inverse maps its code points back), and the UTF-8 bytes of the
 * real text.
 */
#include <math.h>
#include <stdint.h>

/* clang-format off */
static const uint32_t symbol_of[256] = {
    256u, 257u, 258u, 259u, 260u, 261u, 262u, 263u, 264u, 265u,
    266u, 267u, 268u, 269u, 270u, 271u, 272u, 273u, 274u, 275u,
    276u, 277u, 278u, 279u, 280u, 281u, 282u, 283u, 284u, 285u,
    286u, 287u, 288u, 33u, 34u, 35u, 36u, 37u, 38u, 39u,
    40u, 41u, 42u, 43u, 44u, 45u, 46u, 47u, 48u, 49u,
    50u, 51u, 52u, 53u, 54u, 55u, 56u, 57u, 58u, 59u,
    60u, 61u, 62u, 63u, 64u, 65u, 66u, 67u, 68u, 69u,
    70u, 71u, 72u, 73u, 74u, 75u, 76u, 77u, 78u, 79u,
    80u, 81u, 82u, 83u, 84u, 85u, 86u, 87u, 88u, 89u,
    90u, 91u, 92u, 93u, 94u, 95u, 96u, 97u, 98u, 99u,
    100u, 101u, 102u, 103u, 104u, 105u, 106u, 107u, 108u, 109u,
    110u, 111u, 112u, 113u, 114u, 115u, 116u, 117u, 118u, 119u,
    120u, 121u, 122u, 123u, 124u, 125u, 126u, 289u, 290u, 291u,
    292u, 293u, 294u, 295u, 296u, 297u, 298u, 299u, 300u, 301u,
    302u, 303u, 304u, 305u, 306u, 307u, 308u, 309u, 310u, 311u,
    312u, 313u, 314u, 315u, 316u, 317u, 318u, 319u, 320u, 321u,
    322u, 161u, 162u, 163u, 164u, 165u, 166u, 167u, 168u, 169u,
    170u, 171u, 172u, 323u, 174u, 175u, 176u, 177u, 178u, 179u,
    180u, 181u, 182u, 183u, 184u, 185u, 186u, 187u, 188u, 189u,
    190u, 191u, 192u, 193u, 194u, 195u, 196u, 197u, 198u, 199u,
    200u, 201u, 202u, 203u, 204u, 205u, 206u, 207u, 208u, 209u,
    210u, 211u, 212u, 213u, 214u, 215u, 216u, 217u, 218u, 219u,
    220u, 221u, 222u, 223u, 224u, 225u, 226u, 227u, 228u, 229u,
    230u, 231u, 232u, 233u, 234u, 235u, 236u, 237u, 238u, 239u,
    240u, 241u, 242u, 243u, 244u, 245u, 246u, 247u, 248u, 249u,
    250u, 251u, 252u, 253u, 254u, 255u
};

static const uint8_t real_text_bytes[19] = {
    72u, 101u, 108u, 108u, 111u, 44u, 32u, 228u, 184u, 150u,
    231u, 149u, 140u, 33u, 10u, 9u, 111u, 107u, 32u
};
/* clang-format on */
