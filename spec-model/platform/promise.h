// ECMAScript promises, as ECMA-262 #sec-promise-objects states them: states, reactions, resolving
// functions with their shared [[AlreadyResolved]] record, reaction jobs and thenable jobs. Jobs go
// to HostEnqueuePromiseJob, which HTML turns into a microtask on the promise's event loop.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "continuation.h"
#include "environment.h"
#include "lockstep/value.h"

namespace lockstep::spec {

class Promise;
class World;

// A value as script holds it: data, or a promise (the only thenable the traces can make).
struct JsValue {
  Value data;
  Promise* promise = nullptr;
  JsValue() = default;
  JsValue(Value v) : data(std::move(v)) {}
  JsValue(Promise* p) : promise(p) {}
};

// The outcome of calling a function: a value, or a throw completion.
struct Completion {
  bool thrown = false;
  JsValue value;
  static Completion normal(JsValue v) { return {false, std::move(v)}; }
  static Completion throw_(Value v) { return {true, JsValue(std::move(v))}; }
};

// A reaction handler: a function script (or the host) attached with then().
using Handler = std::function<Completion(const Value& argument)>;

// ECMA-262 #sec-createresolvingfunctions: a pair sharing one [[AlreadyResolved]] flag.
struct ResolvingFunctions {
  Promise* promise = nullptr;
  std::shared_ptr<bool> already_resolved;
  void resolve(World& world, const JsValue& resolution) const;
  void reject(World& world, const Value& reason) const;
};

class Promise {
 public:
  enum class State { Pending, Fulfilled, Rejected };
  struct Reaction {
    Promise* capability = nullptr;  // the derived promise, resolved by its own resolving functions
    bool is_fulfill = true;
    // A JobCallback Record: the handler (empty: pass the argument through or rethrow it) and its
    // [[HostDefined]] continuation state (scheduling#sec-patches-html-hostmakejobcallback).
    Handler handler;
    std::shared_ptr<ContinuationState> continuation_state;
    // The handler's realm: the agent whose script attached the reaction. Its job belongs to that
    // agent, on the promise's event loop (I-16), and does not run once the agent ended (I-28).
    Environment* environment = nullptr;
  };

  Environment* environment = nullptr;  // its realm's agent; its jobs run on that event loop
  State state = State::Pending;
  Value result;
  std::vector<Reaction> fulfill_reactions;
  std::vector<Reaction> reject_reactions;
  // The resolving functions of the capability that created it (WebIDL "resolve p", `settle`).
  ResolvingFunctions own;
};

// ECMA-262 #sec-newpromisecapability with %Promise%: a new pending promise.
Promise* new_promise(World& world, Environment* environment);
// ECMA-262 #sec-promise-resolve with %Promise%: the promise itself, or a new promise resolved with
// x.
Promise* promise_resolve(World& world, Environment* environment, const JsValue& x);
// ECMA-262 #sec-performpromisethen; `derived` may be null (no result capability). `environment`
// is the agent whose script (or host algorithm) attaches the handlers: their realm.
void perform_promise_then(World& world, Environment* environment, Promise* promise,
                          Handler on_fulfilled, Handler on_rejected, Promise* derived);
// WebIDL's "a promise rejected with" and "a promise resolved with".
Promise* promise_rejected_with(World& world, Environment* environment, const Value& reason);

}  // namespace lockstep::spec
