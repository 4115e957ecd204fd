//! Who goes first on the wire: the dashboard's own requests (foreground) before a background
//! sync's. A background client waits, before each attempt, until no foreground request is in
//! flight; a foreground request never waits. One gate is shared by the clients of a process.
//!
//! Chosen over a semaphore with a fixed number of permits: the dashboard sends at most a
//! few requests at once and must never queue behind a sync page (a 100-record page can take
//! a second on a slow link), while the sync has nothing urgent: it yields between its pages.

use std::sync::Arc;

use tokio::sync::watch;

/// Counts the foreground requests in flight; background requests wait for zero.
#[derive(Debug)]
pub struct PriorityGate {
    active: watch::Sender<usize>,
}

/// Which side of the gate a client is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    Foreground,
    Background,
}

/// Held while a foreground attempt is in flight.
#[derive(Debug)]
pub struct Turn {
    gate: Option<Arc<PriorityGate>>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(g) = &self.gate {
            g.active.send_modify(|n| *n = n.saturating_sub(1));
        }
    }
}

impl PriorityGate {
    pub fn new() -> Arc<PriorityGate> {
        Arc::new(PriorityGate {
            active: watch::Sender::new(0),
        })
    }

    /// Foreground requests in flight.
    pub fn in_flight(&self) -> usize {
        *self.active.borrow()
    }

    /// Takes a turn: a foreground one at once (counted until dropped), a background one once
    /// no foreground request is in flight.
    pub async fn turn(self: &Arc<Self>, lane: Lane) -> Turn {
        match lane {
            Lane::Foreground => {
                self.active.send_modify(|n| *n += 1);
                Turn {
                    gate: Some(self.clone()),
                }
            }
            Lane::Background => {
                let mut rx = self.active.subscribe();
                // The sender lives in `self`: `wait_for` cannot fail while we hold it.
                let _ = rx.wait_for(|n| *n == 0).await;
                Turn { gate: None }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn background_waits_for_foreground_to_finish() {
        let gate = PriorityGate::new();
        let fg = gate.turn(Lane::Foreground).await;
        assert_eq!(gate.in_flight(), 1);
        let g = gate.clone();
        let bg = tokio::spawn(async move { g.turn(Lane::Background).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!bg.is_finished());
        drop(fg);
        tokio::time::timeout(Duration::from_secs(5), bg)
            .await
            .expect("background proceeds")
            .expect("task");
        assert_eq!(gate.in_flight(), 0);
    }
}
