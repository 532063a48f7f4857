// Fuzz target log_reader: read_log on any bytes. It must return a log or an Error (an exception or
// a sanitizer report is a finding), and a log it returns must survive the writer: write_log's text
// reads back to the same events (Event's equality: values structurally, DOMExceptions by name),
// which write the same text again.
#include "fuzz_support.h"
#include "lockstep/log_compare.h"
#include "lockstep/trace_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lockstep;
  const Result<Log> log = read_log(fuzz::text_of(data, size));
  if (!log) return 0;
  const std::string written = write_log(log.value());
  const Result<Log> again = read_log(written);
  if (!again)
    fuzz::finding("log_reader", "what write_log wrote does not read back: " +
                                    again.error().to_string() + "\nwritten:\n" + written);
  if (auto diff = first_difference(log.value(), again.value()))
    fuzz::finding("log_reader", "the log read back has other events: " + *diff);
  const std::string rewritten = write_log(again.value());
  if (rewritten != written)
    fuzz::finding("log_reader",
                  "the log read back writes differently:\n" + written + "\nthen:\n" + rewritten);
  return 0;
}
