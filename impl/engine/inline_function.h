// A move-only callable that keeps its captures inside the object when they fit in `Capacity`
// bytes, and on the heap otherwise. The runtime makes several jobs and promise reactions per trace
// step; std::function (libstdc++) allocates for any capture larger than two pointers, and those
// allocations were the engine's largest cost (docs/performance.md, "Whole-trace replay").
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace lockstep::impl {

template <class Signature, std::size_t Capacity = 48>
class InlineFunction;

template <class R, class... Args, std::size_t Capacity>
class InlineFunction<R(Args...), Capacity> {
 public:
  InlineFunction() = default;
  InlineFunction(std::nullptr_t) {}

  template <class F, class D = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, InlineFunction> &&
                                     std::is_invocable_r_v<R, D&, Args...>>>
  InlineFunction(F&& f) {
    if constexpr (fits<D>()) {
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
      ops_ = &inline_ops<D>;
    } else {
      ::new (static_cast<void*>(storage_)) D*(new D(std::forward<F>(f)));
      ops_ = &heap_ops<D>;
    }
  }

  InlineFunction(InlineFunction&& other) noexcept { take(other); }
  InlineFunction& operator=(InlineFunction&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  InlineFunction(const InlineFunction&) = delete;
  InlineFunction& operator=(const InlineFunction&) = delete;
  ~InlineFunction() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  R operator()(Args... args) const { return ops_->call(storage_, std::forward<Args>(args)...); }

  // Whether a callable of type D is kept inside the object (else on the heap): for callers that
  // must not allocate to assert it.
  template <class D>
  static constexpr bool fits() {
    return sizeof(D) <= Capacity && alignof(D) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<D>;
  }

 private:
  struct Ops {
    R (*call)(void* storage, Args&&... args);
    void (*move)(void* from, void* to);  // move-constructs into `to` and destroys `from`
    void (*destroy)(void* storage);
  };

  template <class D>
  static constexpr Ops inline_ops{
      [](void* s, Args&&... args) -> R {
        return (*std::launder(static_cast<D*>(s)))(std::forward<Args>(args)...);
      },
      [](void* from, void* to) {
        D* f = std::launder(static_cast<D*>(from));
        ::new (to) D(std::move(*f));
        f->~D();
      },
      [](void* s) { std::launder(static_cast<D*>(s))->~D(); }};

  template <class D>
  static constexpr Ops heap_ops{
      [](void* s, Args&&... args) -> R {
        return (**static_cast<D**>(s))(std::forward<Args>(args)...);
      },
      [](void* from, void* to) { ::new (to) D*(*static_cast<D**>(from)); },
      [](void* s) { delete *static_cast<D**>(s); }};

  void take(InlineFunction& other) noexcept {
    if (!other.ops_) return;
    other.ops_->move(other.storage_, storage_);
    ops_ = other.ops_;
    other.ops_ = nullptr;
  }
  void reset() {
    if (ops_) ops_->destroy(storage_);
    ops_ = nullptr;
  }

  // mutable: calling the callable may change its captures, as calling a lambda's copy inside a
  // std::function may.
  alignas(std::max_align_t) mutable unsigned char storage_[Capacity];
  const Ops* ops_ = nullptr;
};

}  // namespace lockstep::impl
