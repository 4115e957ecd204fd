//! Profiles and what belongs to each: the client requests go out with, and the local mirror
//! (reads, searches, probes and the background sync). `:profile` parks the active profile's
//! client and mirror and takes the next one's, kept from an earlier visit or made anew, so
//! going back reuses a profile's own client, bound to its own host.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::mirror::{MirrorReader, MirrorRuntime};
use super::source::DataSource;
use super::workspace::WorkspaceContext;
use crate::api::Client;
use crate::app::Message;
use crate::app::effects::NewClient;
use crate::app::mirror::{MirrorEffect, MirrorMessage};
use crate::app::table::record::CellFormat;

#[derive(Default)]
pub(super) struct Profiles {
    /// The client requests go out with now, and those of the profiles switched away from
    /// (by profile name).
    client: Option<Client>,
    parked_clients: HashMap<String, Client>,
    /// The active profile's mirror (`None` when `[cache] enabled = false`).
    mirror: Option<MirrorRuntime>,
    /// The mirrors of the profiles switched away from (by profile name).
    parked_mirrors: HashMap<String, MirrorRuntime>,
    /// Profile switches whose client is still being made (so `settle` waits for them).
    switches: usize,
    /// Mirror reads, searches and probes whose answer has not been handled yet.
    mirror_work: usize,
}

impl Profiles {
    pub fn set_client(&mut self, client: Option<Client>) {
        self.client = client;
    }

    pub fn set_mirror(&mut self, mirror: MirrorRuntime) {
        self.mirror = Some(mirror);
    }

    pub fn mirror(&self) -> Option<&MirrorRuntime> {
        self.mirror.as_ref()
    }

    /// A reader of the active profile's mirror, if it has one.
    pub fn reader(&self) -> Option<MirrorReader> {
        self.mirror.as_ref().map(|m| m.reader())
    }

    /// Whether a switch or a mirror read is still to answer.
    pub fn busy(&self) -> bool {
        self.switches > 0 || self.mirror_work > 0
    }

    /// From now on requests go out with `client` (a login, the token lookup, a switch): the
    /// source to use for them. The mirror's sync gets its own clone in the background lane.
    pub fn install_client(
        &mut self,
        client: &Client,
        format: CellFormat,
        tx: &UnboundedSender<Message>,
    ) -> Arc<dyn DataSource> {
        self.client = Some(client.clone());
        let client = match &mut self.mirror {
            Some(m) => {
                // The sync's requests are in the request log too, as the sync's.
                let log = tx.clone();
                m.adopt_client(&client.with_observer(std::sync::Arc::new(
                    move |ev: &crate::api::RequestEvent| {
                        super::source::log_exchange(&log, ev, "sync")
                    },
                )))
            }
            None => client.clone(),
        };
        Arc::new(super::ClientSource::new(client, format, Some(tx.clone())))
    }

    /// `:profile NAME` away from `active`: a profile used before in this session gets its
    /// own client back at once; another is looked up (`runtime::workspace::switch_profile`).
    pub fn switch(
        &mut self,
        name: String,
        active: &str,
        workspace: Option<&WorkspaceContext>,
        tx: &UnboundedSender<Message>,
    ) {
        if let Some(client) = self.parked_clients.remove(&name) {
            self.park_client(active);
            let _ = tx.send(Message::ProfileSwitched {
                profile: name,
                result: Box::new(Ok(NewClient(client))),
            });
            return;
        }
        let Some(cx) = workspace.cloned() else {
            let _ = tx.send(Message::ProfileSwitched {
                profile: name,
                result: Box::new(Err("profiles cannot be switched here".into())),
            });
            return;
        };
        self.park_client(active);
        self.switches += 1;
        super::workspace::switch_profile(tx.clone(), cx, name);
    }

    /// Keeps the active profile's client for a return to it (`:profile`). Requests go on with
    /// it until the app installs the next profile's.
    fn park_client(&mut self, active: &str) {
        if let Some(c) = &self.client {
            self.parked_clients.insert(active.to_string(), c.clone());
        }
    }

    /// Before the app sees `msg`: counts the answers `settle` waits for, and on a profile
    /// switch moves the mirrors (the app's `workspace.profile` is still `active`).
    pub fn before_update(&mut self, msg: &Message, active: &str) {
        match msg {
            Message::ProfileSwitched { profile, result } => {
                self.switches = self.switches.saturating_sub(1);
                if let Ok(client) = result.as_ref() {
                    self.switch_mirror(profile, client.0.base_url().as_str(), active);
                }
            }
            Message::Mirror(
                MirrorMessage::Rows { .. }
                | MirrorMessage::Search { .. }
                | MirrorMessage::Related { .. }
                | MirrorMessage::Feed { .. }
                | MirrorMessage::Dupes { .. }
                | MirrorMessage::NearContacts { .. }
                | MirrorMessage::ContactRecords { .. }
                | MirrorMessage::Probed(_),
            ) => {
                self.mirror_work = self.mirror_work.saturating_sub(1);
            }
            _ => {}
        }
    }

    /// Each profile has its own mirror (one file per profile and base URL): the active one is
    /// kept for a return (the app stops its sync job: it resumes next time); the new
    /// profile's is taken from the kept ones or made. The app then reads its rows
    /// (`App::mirror_switched`).
    fn switch_mirror(&mut self, profile: &str, base_url: &str, previous: &str) {
        let Some(current) = self.mirror.take() else {
            return;
        };
        let next = self
            .parked_mirrors
            .remove(profile)
            .or_else(|| current.for_profile(profile, base_url));
        self.parked_mirrors.insert(previous.to_string(), current);
        self.mirror = next;
    }

    /// What a sync job of the active profile's mirror needs (`None`: no mirror).
    pub fn sync_cx(&self, tx: &UnboundedSender<Message>) -> Option<super::mirror::SyncCx> {
        self.mirror.as_ref().map(|m| m.sync_cx(tx))
    }

    /// Runs a mirror effect: reads and searches on the blocking pool, the probe as a task.
    /// `generation` is the app's mirror generation (a read of a mirror switched away from is
    /// dropped); a probe without a client asks `fallback`.
    pub fn mirror_effect(
        &mut self,
        e: MirrorEffect,
        tx: &UnboundedSender<Message>,
        generation: u64,
        format: CellFormat,
        fallback: Option<Arc<dyn DataSource>>,
    ) {
        let tx = tx.clone();
        let Some(m) = &mut self.mirror else {
            // No mirror: reads answer "none", so dialogs say how to get one.
            let msg = match e {
                MirrorEffect::Rows(_) | MirrorEffect::Probe(_) => return,
                MirrorEffect::Search { id, .. } => MirrorMessage::Search {
                    id,
                    result: Ok(None),
                },
                MirrorEffect::Related { id, .. } => MirrorMessage::Related {
                    id,
                    result: Ok(None),
                },
                MirrorEffect::Feed { id, .. } => MirrorMessage::Feed {
                    id,
                    result: Ok(None),
                },
                MirrorEffect::Dupes { id, .. } => MirrorMessage::Dupes {
                    id,
                    result: Ok(None),
                },
                MirrorEffect::NearContacts { id, .. } => MirrorMessage::NearContacts {
                    id,
                    result: Ok(None),
                },
                MirrorEffect::ContactRecords { id, .. } => MirrorMessage::ContactRecords {
                    id,
                    result: Ok(None),
                },
            };
            let _ = tx.send(Message::Mirror(msg));
            return;
        };
        let reader = m.reader();
        match e {
            MirrorEffect::Rows(specs) => {
                for spec in specs {
                    self.mirror_work += 1;
                    let tx = tx.clone();
                    let reader = reader.clone();
                    tokio::spawn(async move {
                        let s = spec.clone();
                        let result = reader.run(move |r| r.page(&s)).await;
                        let result = result.map(|p| p.map(Arc::new));
                        let _ = tx.send(Message::Mirror(MirrorMessage::Rows {
                            spec,
                            result,
                            generation,
                        }));
                    });
                }
            }
            MirrorEffect::Search { id, text } => {
                self.mirror_work += 1;
                tokio::spawn(async move {
                    let result = reader.run(move |r| r.search(&text)).await;
                    let _ = tx.send(Message::Mirror(MirrorMessage::Search { id, result }));
                });
            }
            MirrorEffect::Related { id, of } => {
                self.mirror_work += 1;
                tokio::spawn(async move {
                    let result = reader.run(move |r| r.related(&of)).await;
                    let _ = tx.send(Message::Mirror(MirrorMessage::Related { id, result }));
                });
            }
            MirrorEffect::Feed { id, ask } => {
                self.mirror_work += 1;
                tokio::spawn(async move {
                    let result = reader.run(move |r| r.feed(ask)).await;
                    let _ = tx.send(Message::Mirror(MirrorMessage::Feed { id, result }));
                });
            }
            MirrorEffect::Dupes { id, finder } => {
                self.mirror_work += 1;
                tokio::spawn(async move {
                    let result = reader.run(move |r| r.dupes(&finder)).await;
                    let result = result.map(|r| r.map(Arc::new));
                    let _ = tx.send(Message::Mirror(MirrorMessage::Dupes { id, result }));
                });
            }
            MirrorEffect::NearContacts { id, draft, finder } => {
                self.mirror_work += 1;
                tokio::spawn(async move {
                    let result = reader.run(move |r| r.near_contacts(&draft, &finder)).await;
                    let _ = tx.send(Message::Mirror(MirrorMessage::NearContacts { id, result }));
                });
            }
            MirrorEffect::ContactRecords { id, ids } => {
                self.mirror_work += 1;
                tokio::spawn(async move {
                    let result = reader.run(move |r| r.contact_records(&ids)).await;
                    let _ = tx.send(Message::Mirror(MirrorMessage::ContactRecords {
                        id,
                        result,
                    }));
                });
            }
            MirrorEffect::Probe(spec) => {
                self.mirror_work += 1;
                // One attempt: the question is only whether the service answers, and the
                // client's retries would say "retrying 4/4" on the status line every 15 s.
                let source: Option<Arc<dyn DataSource>> = match &self.client {
                    Some(c) => Some(Arc::new(super::ClientSource::new(
                        c.single_attempt(),
                        format,
                        None,
                    ))),
                    None => fallback,
                };
                tokio::spawn(async move {
                    let result = match source {
                        Some(s) => s.fetch(spec).await.map(|_| ()).map_err(|e| e.summary()),
                        None => Err("no API token".to_string()),
                    };
                    let _ = tx.send(Message::Mirror(MirrorMessage::Probed(result)));
                });
            }
        }
    }
}
