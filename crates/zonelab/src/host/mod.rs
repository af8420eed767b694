//! Host layers that run as tasks on the simulation kernel: the zoned file layer ([`fs`]) with its
//! placement personalities and zone GC policies, and the key-value store ([`kv`]). Each is a
//! handle shared by tasks whose async operations take the calling task's
//! [`Host`](crate::sim::host::Host).

pub mod fs;
pub mod kv;

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

/// Runs `futures` at once inside one task and waits for all of them; results in order. Commands
/// are submitted in the order the futures are given (each submits when first polled).
pub async fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut futs: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = futs.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, slot) in futs.iter_mut().zip(out.iter_mut()) {
            if slot.is_none() {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => *slot = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    out.into_iter()
        .map(|v| v.expect("every future finished"))
        .collect()
}
