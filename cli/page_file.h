// The file that `export --wpt` writes a trace's page to, from the trace's name: always one plain
// file name, so that no name (`../x`, `/etc/x`, `a/b`, `..`) can put a page outside the folder.
#pragma once

#include <cstddef>
#include <string>

namespace lockstep::cli {

constexpr std::size_t kMaxPageNameLength = 100;  // before ".html": far below NAME_MAX (255)

// `trace_name` with every character (a UTF-8 sequence counts as one) but A-Z, a-z, 0-9, `.`, `_`
// and `-` made `-`, a leading `.` made `-` (no hidden file, no `.` or `..`), cut to
// kMaxPageNameLength characters, "trace" for an empty name; then ".html".
std::string page_file_name(const std::string& trace_name);

}  // namespace lockstep::cli
