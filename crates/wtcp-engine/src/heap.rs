//! Heap accounting for per-run memory limits: an allocator that counts, per thread, the
//! bytes it holds on the heap.
//!
//! A run executes on one thread, so the growth of that thread's count from the run's
//! start is the memory the run holds: packets, events, queues, flow state, traces. The
//! engine does not install the allocator itself; the Python extension does
//! (`#[global_allocator] static A: CountingAlloc = CountingAlloc;`), as can a binary or a
//! test. Without it [`thread_bytes`] stays 0. The count is a thread-local integer, with no
//! atomic operation or lock on the allocation path.
//!
//! A block freed on another thread than the one that allocated it lowers the other
//! thread's count; the counts are for differences taken on one thread (as a run does),
//! not absolute figures.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// Bytes allocated minus bytes freed on this thread (const-initialised and without a
    /// destructor, so the allocator may touch it at any time, thread exit included).
    static HELD: Cell<isize> = const { Cell::new(0) };
}

fn add(delta: isize) {
    let _ = HELD.try_with(|h| h.set(h.get().wrapping_add(delta)));
}

/// Bytes allocated minus bytes freed on the calling thread through [`CountingAlloc`].
pub fn thread_bytes() -> isize {
    HELD.try_with(Cell::get).unwrap_or(0)
}

/// The system allocator, counting per thread (see the module documentation).
pub struct CountingAlloc;

// SAFETY: every call is forwarded unchanged to `System`; the bookkeeping touches only a
// thread-local integer and never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        add(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(new_size as isize - layout.size() as isize);
        }
        p
    }
}
