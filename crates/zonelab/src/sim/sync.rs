//! Synchronisation between host tasks: a counting semaphore, a mutex built on it, and a
//! condition variable. Waiters are served first come, first served; a release hands the permit
//! to the first waiter and wakes it at the same simulated time, after the releasing task yields.

use std::cell::{Cell, RefCell, RefMut};
use std::collections::VecDeque;
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::rc::Rc;
use std::task::Poll;

use super::host::Host;
use super::kernel::TaskId;

type Waiters = RefCell<VecDeque<(TaskId, Rc<Cell<bool>>)>>;

/// A counting semaphore (write stalls, open-zone tokens, I/O slots).
pub struct Semaphore {
    permits: Cell<u64>,
    waiters: Waiters,
}

impl Semaphore {
    pub fn new(permits: u64) -> Self {
        Semaphore {
            permits: Cell::new(permits),
            waiters: RefCell::new(VecDeque::new()),
        }
    }

    pub fn available(&self) -> u64 {
        self.permits.get()
    }

    pub fn waiting(&self) -> usize {
        self.waiters.borrow().len()
    }

    /// Waits for a permit; it is given back when the guard drops.
    pub async fn acquire<'a>(&'a self, host: &Host) -> SemaphoreGuard<'a> {
        self.acquire_raw(host).await;
        SemaphoreGuard {
            sem: self,
            host: host.clone(),
        }
    }

    /// A permit now, if one is free and nobody queues for it.
    pub fn try_acquire<'a>(&'a self, host: &Host) -> Option<SemaphoreGuard<'a>> {
        if !self.waiters.borrow().is_empty() || self.permits.get() == 0 {
            return None;
        }
        self.permits.set(self.permits.get() - 1);
        Some(SemaphoreGuard {
            sem: self,
            host: host.clone(),
        })
    }

    /// Waits for a permit that the caller gives back with [`Semaphore::release`].
    pub async fn acquire_raw(&self, host: &Host) {
        if self.waiters.borrow().is_empty() && self.permits.get() > 0 {
            self.permits.set(self.permits.get() - 1);
            return;
        }
        let flag = Rc::new(Cell::new(false));
        self.waiters
            .borrow_mut()
            .push_back((current(host), flag.clone()));
        std::future::poll_fn(|_| {
            if flag.get() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await;
    }

    /// Gives a permit back: to the first waiter if there is one.
    pub fn release(&self, host: &Host) {
        match self.waiters.borrow_mut().pop_front() {
            Some((task, flag)) => {
                flag.set(true);
                host.wake(task);
            }
            None => self.permits.set(self.permits.get() + 1),
        }
    }
}

fn current(host: &Host) -> TaskId {
    host.kernel
        .current
        .get()
        .expect("sync primitives are awaited inside a task")
}

pub struct SemaphoreGuard<'a> {
    sem: &'a Semaphore,
    host: Host,
}

impl Drop for SemaphoreGuard<'_> {
    fn drop(&mut self) {
        self.sem.release(&self.host);
    }
}

/// A mutex whose waiting takes simulated time: tasks queue for it in order.
pub struct Mutex<T> {
    sem: Semaphore,
    value: RefCell<T>,
}

impl<T> Mutex<T> {
    pub fn new(value: T) -> Self {
        Mutex {
            sem: Semaphore::new(1),
            value: RefCell::new(value),
        }
    }

    pub async fn lock<'a>(&'a self, host: &Host) -> MutexGuard<'a, T> {
        let permit = self.sem.acquire(host).await;
        MutexGuard {
            value: Some(self.value.borrow_mut()),
            _permit: permit,
            mutex: self,
        }
    }

    /// The lock now, if nobody holds or waits for it (`down_write_trylock`).
    pub fn try_lock(&self, host: &Host) -> Option<MutexGuard<'_, T>> {
        let permit = self.sem.try_acquire(host)?;
        Some(MutexGuard {
            value: Some(self.value.borrow_mut()),
            _permit: permit,
            mutex: self,
        })
    }

    /// The value without locking (only between awaits, when no task holds the lock).
    pub fn peek(&self) -> std::cell::Ref<'_, T> {
        self.value.borrow()
    }
}

pub struct MutexGuard<'a, T> {
    // Dropped before the permit: the value is released, then the next waiter runs.
    value: Option<RefMut<'a, T>>,
    _permit: SemaphoreGuard<'a>,
    mutex: &'a Mutex<T>,
}

impl<T> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value.as_ref().expect("held")
    }
}

impl<T> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value.as_mut().expect("held")
    }
}

/// A condition variable: tasks wait for a notification (fsync waiters, GC wake-ups, stalls).
#[derive(Default)]
pub struct Condvar {
    waiters: Waiters,
}

impl Condvar {
    pub fn new() -> Self {
        Condvar::default()
    }

    /// Waits for the next notification.
    pub async fn notified(&self, host: &Host) {
        let flag = Rc::new(Cell::new(false));
        self.waiters
            .borrow_mut()
            .push_back((current(host), flag.clone()));
        std::future::poll_fn(|_| {
            if flag.get() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await;
    }

    /// Waits for the next notification or until `until`, whichever comes first (a daemon that
    /// also wakes on a timer); true if notified. A timed-out wait leaves no waiter behind.
    pub async fn notified_until(&self, host: &Host, until: crate::time::Instant) -> bool {
        let flag = Rc::new(Cell::new(false));
        self.waiters
            .borrow_mut()
            .push_back((current(host), flag.clone()));
        let mut timer = Box::pin(host.sleep_until(until));
        let notified = std::future::poll_fn(|cx| {
            if flag.get() {
                return Poll::Ready(true);
            }
            if timer.as_mut().poll(cx).is_ready() {
                return Poll::Ready(false);
            }
            Poll::Pending
        })
        .await;
        if !notified {
            self.waiters
                .borrow_mut()
                .retain(|(_, f)| !Rc::ptr_eq(f, &flag));
        }
        notified
    }

    /// Releases `guard`, waits for a notification, and takes the lock again.
    pub async fn wait<'a, T>(&self, host: &Host, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        let mutex = guard.mutex;
        drop(guard);
        self.notified(host).await;
        mutex.lock(host).await
    }

    pub fn notify_one(&self, host: &Host) {
        if let Some((task, flag)) = self.waiters.borrow_mut().pop_front() {
            flag.set(true);
            host.wake(task);
        }
    }

    pub fn notify_all(&self, host: &Host) {
        for (task, flag) in self.waiters.borrow_mut().drain(..) {
            flag.set(true);
            host.wake(task);
        }
    }

    pub fn waiting(&self) -> usize {
        self.waiters.borrow().len()
    }
}
