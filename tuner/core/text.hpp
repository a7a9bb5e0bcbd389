// User values in messages: a sweep file, a results file or a command line can hold any bytes, and
// a message that prints them raw can move a terminal's cursor, recolour it or hide text (escape
// sequences, carriage returns, bidirectional overrides). Every value a message quotes goes
// through printable().
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cuop::core {

// `text` with what a terminal would act on made visible, everything else unchanged:
// - control characters: \n, \r, \t, and \xNN for the others (C0 and DEL);
// - bytes that are not UTF-8 (a stray 0xff, an overlong or truncated sequence, a surrogate):
//   \xNN each;
// - the C1 controls (U+0080 to U+009F), the bidirectional controls (U+061C, U+200E, U+200F,
//   U+202A to U+202E, U+2066 to U+2069) and the line and paragraph separators (U+2028, U+2029):
//   \uNNNN.
// Valid UTF-8 text (accents, CJK) stays as it is; quotes and backslashes too. The result is
// valid UTF-8, and printable(printable(x)) == printable(x).
std::string printable(std::string_view text);

// Whether `text` is valid UTF-8 (what JSON, and so the worker protocol, can carry).
bool is_utf8(std::string_view text);

// printable(), but newlines kept: a multi-line report (compare's table) whose fields come from
// files anyone can write.
std::string printable_lines(std::string_view text);

// "\"" + printable(text) + "\"": a value quoted in a message. A value longer than
// max_quoted_bytes is cut (at a character's boundary) and its size said, `"aaaa..." (100000
// bytes)`: a 16 MiB key must not become a 16 MiB message.
std::string quoted(std::string_view text);

inline constexpr std::size_t max_quoted_bytes = 200;

}  // namespace cuop::core
