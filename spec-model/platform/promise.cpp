#include "promise.h"

#include "errors.h"
#include "step.h"
#include "world.h"

namespace lockstep::spec {
namespace {

// https://html.spec.whatwg.org/#hostenqueuepromisejob: queue a microtask on the surrounding
// agent's event loop. Script only touches promises from their own event loop (I-16), so that is
// the promise's environment's event loop.
void host_enqueue_promise_job(World& world, Environment* environment, std::function<void()> job) {
  // scheduling#sec-patches-html-hostenqueuepromisejob: the job restores its own continuation
  // state (HostCallJobCallback), so the microtask ignores the current one.
  SPEC_STEP("sec-patches-html-hostenqueuepromisejob 2");
  world.queue_a_microtask(environment, std::move(job), /*ignore_continuation_state=*/true);
}

// https://html.spec.whatwg.org/#hostmakejobcallback with the scheduling patch: the JobCallback
// remembers a clone of the continuation state current when the reaction was registered.
std::shared_ptr<ContinuationState> host_make_job_callback(Environment* environment) {
  SPEC_STEP("sec-patches-html-hostmakejobcallback before-5.1");
  EventLoop& event_loop = *environment->event_loop;
  SPEC_STEP("sec-patches-html-hostmakejobcallback before-5.2");
  return event_loop.current_continuation_state ? event_loop.current_continuation_state->clone()
                                               : nullptr;
}

// https://html.spec.whatwg.org/#hostcalljobcallback with the scheduling patch.
Completion host_call_job_callback(Environment* environment, const Promise::Reaction& reaction,
                                  const Value& argument) {
  SPEC_STEP("sec-patches-html-hostcalljobcallback before-5.1");
  EventLoop& event_loop = *environment->event_loop;
  SPEC_STEP("sec-patches-html-hostcalljobcallback before-5.2");
  event_loop.current_continuation_state = reaction.continuation_state;
  Completion result = reaction.handler(argument);
  SPEC_STEP("sec-patches-html-hostcalljobcallback after-7.1");
  event_loop.current_continuation_state = nullptr;
  return result;
}

ResolvingFunctions create_resolving_functions(Promise* promise) {
  // ECMA-262 #sec-createresolvingfunctions: steps 1-2 and 9 share one alreadyResolved record.
  return ResolvingFunctions{promise, std::make_shared<bool>(false)};
}

// ECMA-262 #sec-promisereactionjob
void promise_reaction_job(World& world, Environment* realm, const Promise::Reaction& reaction,
                          const Value& argument) {
  Completion handler_result;
  if (!reaction.handler) {
    // Steps 1.d-e: no handler: fulfil passes the value on, reject rethrows it.
    handler_result =
        reaction.is_fulfill ? Completion::normal(argument) : Completion::throw_(argument);
  } else {
    handler_result = host_call_job_callback(realm, reaction, argument);  // step 1.f
  }
  if (!reaction.capability) {  // step 1.g: nothing derived; host handlers never throw
    spec_assert(!handler_result.thrown, "a reaction without capability completed normally");
    return;
  }
  if (handler_result.thrown)
    reaction.capability->own.reject(world, handler_result.value.data);  // step 1.h
  else
    reaction.capability->own.resolve(world, handler_result.value);  // step 1.i
}

// ECMA-262 #sec-triggerpromisereactions: one job per reaction, in registration order. The job's
// realm is its handler's (#sec-newpromisereactionjob step 3), so it is queued for the agent that
// attached the reaction (I-28).
void trigger_promise_reactions(World& world, std::vector<Promise::Reaction> reactions,
                               const Value& argument) {
  for (Promise::Reaction& reaction : reactions) {
    Environment* realm = reaction.environment;
    host_enqueue_promise_job(world, realm,
                             [&world, realm, reaction = std::move(reaction), argument] {
                               promise_reaction_job(world, realm, reaction, argument);
                             });
  }
}

// ECMA-262 #sec-fulfillpromise
void fulfill_promise(World& world, Promise* promise, const Value& value) {
  spec_assert(promise->state == Promise::State::Pending, "FulfillPromise on a pending promise");
  auto reactions = std::move(promise->fulfill_reactions);
  promise->result = value;
  promise->fulfill_reactions.clear();
  promise->reject_reactions.clear();
  promise->state = Promise::State::Fulfilled;
  trigger_promise_reactions(world, std::move(reactions), value);
}

// ECMA-262 #sec-rejectpromise (HostPromiseRejectionTracker has nothing observable here)
void reject_promise(World& world, Promise* promise, const Value& reason) {
  spec_assert(promise->state == Promise::State::Pending, "RejectPromise on a pending promise");
  auto reactions = std::move(promise->reject_reactions);
  promise->result = reason;
  promise->fulfill_reactions.clear();
  promise->reject_reactions.clear();
  promise->state = Promise::State::Rejected;
  trigger_promise_reactions(world, std::move(reactions), reason);
}

// ECMA-262 #sec-newpromiseresolvethenablejob: thenable.then(resolve, reject) in a job of its own.
void promise_resolve_thenable_job(World& world, Promise* promise_to_resolve, Promise* thenable) {
  ResolvingFunctions resolving = create_resolving_functions(promise_to_resolve);  // step 1.a
  // Step 1.b calls %Promise.prototype.then%, which makes a derived promise
  // (#sec-promise.prototype.then step 4) and performs PerformPromiseThen with it.
  Promise* derived = new_promise(world, thenable->environment);
  perform_promise_then(
      world, thenable->environment, thenable,
      [&world, resolving](const Value& v) {
        resolving.resolve(world, v);
        return Completion::normal(Value());
      },
      [&world, resolving](const Value& r) {
        resolving.reject(world, r);
        return Completion::normal(Value());
      },
      derived);
}

}  // namespace

// ECMA-262 #sec-promise-resolve-functions
void ResolvingFunctions::resolve(World& world, const JsValue& resolution) const {
  if (*already_resolved) return;        // step 5-6
  *already_resolved = true;             // step 7
  if (resolution.promise == promise) {  // step 8: resolving a promise with itself
    reject_promise(world, promise, Value::dom_exception("TypeError", "chaining cycle"));
    return;
  }
  if (!resolution.promise) {  // steps 9-12: not a thenable
    fulfill_promise(world, promise, resolution.data);
    return;
  }
  // Steps 13-16: a promise is a thenable; adopting it takes a job, whose realm is that of the
  // thenable's then (#sec-newpromiseresolvethenablejob step 3): the thenable's agent (I-28).
  Promise* target = promise;
  Promise* thenable = resolution.promise;
  host_enqueue_promise_job(world, thenable->environment, [&world, target, thenable] {
    promise_resolve_thenable_job(world, target, thenable);
  });
}

// ECMA-262 #sec-promise-reject-functions
void ResolvingFunctions::reject(World& world, const Value& reason) const {
  if (*already_resolved) return;  // steps 5-6
  *already_resolved = true;       // step 7
  reject_promise(world, promise, reason);
}

Promise* new_promise(World& world, Environment* environment) {
  Promise* p = world.make<Promise>();
  p->environment = environment;
  p->own = create_resolving_functions(p);
  return p;
}

Promise* promise_resolve(World& world, Environment* environment, const JsValue& x) {
  if (x.promise) return x.promise;  // ECMA-262 #sec-promise-resolve step 1: same constructor
  Promise* p = new_promise(world, environment);  // step 2
  p->own.resolve(world, x);                      // step 3
  return p;
}

void perform_promise_then(World& world, Environment* environment, Promise* promise,
                          Handler on_fulfilled, Handler on_rejected, Promise* derived) {
  // Steps 3-4 make JobCallbacks of callable handlers (HostMakeJobCallback); steps 5-8 the
  // reactions.
  auto fulfill_state = on_fulfilled ? host_make_job_callback(environment) : nullptr;
  auto reject_state = on_rejected ? host_make_job_callback(environment) : nullptr;
  Promise::Reaction fulfill{derived, true, std::move(on_fulfilled), std::move(fulfill_state),
                            environment};
  Promise::Reaction reject{derived, false, std::move(on_rejected), std::move(reject_state),
                           environment};
  switch (promise->state) {
    case Promise::State::Pending:  // step 9
      promise->fulfill_reactions.push_back(std::move(fulfill));
      promise->reject_reactions.push_back(std::move(reject));
      break;
    case Promise::State::Fulfilled:  // step 10
      trigger_promise_reactions(world, {std::move(fulfill)}, promise->result);
      break;
    case Promise::State::Rejected:  // step 11
      trigger_promise_reactions(world, {std::move(reject)}, promise->result);
      break;
  }
}

Promise* promise_rejected_with(World& world, Environment* environment, const Value& reason) {
  Promise* p = new_promise(world, environment);
  p->own.reject(world, reason);
  return p;
}

}  // namespace lockstep::spec
