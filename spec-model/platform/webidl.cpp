#include "webidl.h"

namespace lockstep::spec {

Promise* to_promise(World& world, Environment* environment, const Completion& completion) {
  if (completion.thrown) return promise_rejected_with(world, environment, completion.value.data);
  // webidl#es-promise: converting to Promise<T> is PromiseResolve(%Promise%, V) (I-22).
  return promise_resolve(world, environment, completion.value);
}

}  // namespace lockstep::spec
