// tlsf/lock.hpp - how a heap is made safe to share between threads.
//
// A TLSF heap is not locked internally (see tlsf.h). A tlsf::heap can be given a lock: two
// functions and a context pointer, called around every operation. Function pointers
// rather than a template parameter, so that every heap has the same type - an allocator
// or memory resource can then point at any heap, locked or not - and so that an RTOS
// primitive written in C fits without a wrapper class:
//
//   tlsf::lock_hooks hooks{[](void *) { vTaskSuspendAll(); },
//                          [](void *) { xTaskResumeAll(); }, nullptr};
//   heap.set_lock(hooks);
//
// Any type with lock() and unlock() (std::mutex, a class around an RTOS mutex) is adapted
// by lock_hooks_for. An unlocked heap pays one predictable branch per operation.
#ifndef TLSF_LOCK_HPP
#define TLSF_LOCK_HPP

namespace tlsf {

// A lock as plain functions. Both null (the default): no locking. The functions must not
// throw (heap operations are noexcept) and must not allocate from the heap they guard.
struct lock_hooks {
    void (*lock)(void *context) = nullptr;
    void (*unlock)(void *context) = nullptr;
    void *context = nullptr;
};

// lock_hooks that call mutex.lock() and mutex.unlock() on `mutex`, which must outlive
// every use of the heap it guards. Works for any BasicLockable type.
template <class BasicLockable>
constexpr lock_hooks lock_hooks_for(BasicLockable &mutex) noexcept {
    return lock_hooks{[](void *m) { static_cast<BasicLockable *>(m)->lock(); },
                      [](void *m) { static_cast<BasicLockable *>(m)->unlock(); }, &mutex};
}

namespace detail {

// Holds `hooks` for a scope. A copy, so that a lock replaced meanwhile is still released
// through the function that acquired it.
class scoped_lock {
  public:
    explicit scoped_lock(const lock_hooks &hooks) noexcept : hooks_(hooks) {
        if (hooks_.lock) hooks_.lock(hooks_.context);
    }
    ~scoped_lock() {
        if (hooks_.unlock) hooks_.unlock(hooks_.context);
    }
    scoped_lock(const scoped_lock &) = delete;
    scoped_lock &operator=(const scoped_lock &) = delete;

  private:
    lock_hooks hooks_;
};

} // namespace detail
} // namespace tlsf

#endif // TLSF_LOCK_HPP
