#include <initializer_list>

#include "json_node.h"
#include "json_stream.h"
#include "lockstep/targets.h"

namespace lockstep {
namespace {

using detail::child;
using detail::fail;
using detail::Node;

constexpr std::size_t kMaxTargetsBytes = 16u << 20;
constexpr detail::ParseLimits kLimits{16, 64u << 10};

void check_members(const Node& obj, const std::string& pointer,
                   std::initializer_list<const char*> allowed) {
  for (const auto& [key, value] : obj.members()) {
    bool known = false;
    std::string list;
    for (const char* a : allowed) {
      known = known || key == a;
      list += std::string(list.empty() ? "" : ", ") + a;
    }
    if (!known)
      fail(child(pointer, key),
           "unknown member \"" + key.substr(0, 40) + "\" (allowed here: " + list + ")");
  }
}

std::string string_member(const Node& obj, const char* key, const std::string& pointer) {
  const Node& v = obj[key];
  if (!v.is_string()) fail(child(pointer, key), "expected a string, got " + v.type_name());
  return v.as_string();
}

TargetEntry read_entry(const std::string& name, const Node& j, const std::string& p) {
  if (!j.is_object()) fail(p, "a target is an object, got " + j.type_name());
  check_members(j, p,
                {"description", "command", "serve", "serveAtOnce", "profile", "without", "partial",
                 "jobsPerCore"});
  TargetEntry t;
  t.name = name;
  t.pointer = p;
  if (!j.contains("command")) fail(p, "missing required member \"command\"");
  t.command = string_member(j, "command", p);
  if (j.contains("description")) t.description = string_member(j, "description", p);
  if (j.contains("serve")) t.serve = string_member(j, "serve", p);
  if (j.contains("profile")) t.profile = string_member(j, "profile", p);
  if (j.contains("without")) t.without = string_member(j, "without", p);
  if (j.contains("partial")) {
    if (!j["partial"].is_boolean())
      fail(child(p, "partial"), "expected true or false, got " + j["partial"].dump());
    t.partial = j["partial"].as_boolean();
  }
  if (j.contains("jobsPerCore")) {
    const auto jobs = j["jobsPerCore"].exact_integer(1, 16);
    if (!jobs)
      fail(child(p, "jobsPerCore"),
           "expected a whole number from 1 to 16, got " + j["jobsPerCore"].dump());
    t.jobs_per_core = static_cast<int>(*jobs);
  }
  if (j.contains("serveAtOnce")) {
    if (!t.serve)
      fail(child(p, "serveAtOnce"), "a target without \"serve\" serves nothing at once");
    const auto at_once = j["serveAtOnce"].exact_integer(1, 64);
    if (!at_once)
      fail(child(p, "serveAtOnce"),
           "expected a whole number from 1 to 64, got " + j["serveAtOnce"].dump());
    t.serve_at_once = static_cast<int>(*at_once);
  }
  return t;
}

class TargetsReader : public detail::DocumentSink {
 public:
  void member(const std::string& key, Node&& value) override {
    if (key == "about") {
      file_.about = string_member_at(value, "/about");
    } else if (key == "targets") {
      if (!value.is_object()) fail("/targets", "expected an object of targets by name");
      for (const auto& [name, entry] : value.members())
        file_.targets.push_back(read_entry(name, entry, child("/targets", name)));
      seen_targets_ = true;
    } else {
      fail(child("", key),
           "unknown member \"" + key.substr(0, 40) + "\" (allowed here: about, targets)");
    }
  }
  void item(std::size_t, Node&) override {}  // nothing is streamed

  TargetsFile finish() {
    if (!seen_targets_) fail("", "missing required member \"targets\"");
    return std::move(file_);
  }

 private:
  static std::string string_member_at(const Node& v, const std::string& pointer) {
    if (!v.is_string()) fail(pointer, "expected a string, got " + v.type_name());
    return v.as_string();
  }
  TargetsFile file_;
  bool seen_targets_ = false;
};

Result<TargetsFile> read_targets_from(detail::ByteSource& source) {
  TargetsReader reader;
  return detail::read_document(source, kLimits, "a targets file", "", reader);
}

}  // namespace

const TargetEntry* TargetsFile::find(const std::string& name) const {
  for (const TargetEntry& t : targets)
    if (t.name == name) return &t;
  return nullptr;
}

Result<TargetsFile> read_targets(const std::string& text) {
  return read_targets_from(*detail::ByteSource::of_text(text, kMaxTargetsBytes));
}

Result<TargetsFile> read_targets_file(const std::string& path) {
  return detail::read_path(path, kMaxTargetsBytes, read_targets_from);
}

}  // namespace lockstep
