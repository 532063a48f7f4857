// Fuzz target trace_reader: read_trace on any bytes. It must return a trace or an Error (an
// exception or a sanitizer report is a finding), and a trace it returns must survive the writer:
// write_trace's text reads back, to a trace that writes the same text. Trace has no equality; a
// trace that writes the same text holds everything the format can say about it.
#include "fuzz_support.h"
#include "lockstep/trace_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lockstep;
  const Result<Trace> trace = read_trace(fuzz::text_of(data, size));
  if (!trace) return 0;
  const std::string written = write_trace(trace.value());
  const Result<Trace> again = read_trace(written);
  if (!again)
    fuzz::finding("trace_reader", "what write_trace wrote does not read back: " +
                                      again.error().to_string() + "\nwritten:\n" + written);
  const std::string rewritten = write_trace(again.value());
  if (rewritten != written)
    fuzz::finding("trace_reader",
                  "the trace read back writes differently:\n" + written + "\nthen:\n" + rewritten);
  return 0;
}
