//! The write gate's part in the runtime: what a write effect passes (the active profile's
//! flags, the dashboard asking, the write journal) and its intent, and the ticket it got.

use serde_json::Value;

use super::{Sent, WriteKind};
use crate::app::{App, Effect, RequestId};
use crate::gate::WriteIntent;
use crate::journal::{JournalFile, Who};
use crate::writes::{Gatekeeper, Requester};

impl App {
    /// What a create or reschedule effect sends, as its journal entry will say, from the active
    /// profile; `None` for other effects.
    pub(super) fn sent_of(&self, e: &Effect) -> Option<(RequestId, Sent)> {
        let (id, kind, sent, key, target) = match e {
            Effect::CreateContact { id, contact, key } => (
                *id,
                WriteKind::Create,
                serde_json::to_value(contact).unwrap_or_default(),
                Some(key.to_string()),
                None,
            ),
            Effect::Reschedule {
                id,
                appointment_id,
                body,
            } => (
                *id,
                WriteKind::Reschedule,
                Value::Object(body.clone()),
                None,
                Some(appointment_id.clone()),
            ),
            _ => return None,
        };
        let sent = Sent {
            kind,
            profile: self.workspace.profile.clone(),
            host: self.config.host.clone(),
            sent,
            key,
            target,
            ticket: None,
            reserved: None,
        };
        Some((id, sent))
    }

    /// The gate a write effect passes in the runtime (`crate::writes`), and its intent: the
    /// active profile's flags, the dashboard (which sends a protected profile's write only
    /// after its name was typed), and the write journal.
    pub fn admission(&self, e: &Effect) -> Option<(Gatekeeper, WriteIntent)> {
        // What `release` remembered; an effect run without it (a test's) as it would be.
        let (id, fresh) = self.sent_of(e)?;
        let sent = self.safety.sent.get(&id).cloned().unwrap_or(fresh);
        let profile = sent.profile;
        let gate = Gatekeeper {
            flags: self.profile_safety_of(&profile),
            guard: profile.clone(),
            requester: Requester::Dashboard,
            journal: JournalFile {
                path: self.safety.config.journal.clone(),
            },
        };
        let intent = WriteIntent {
            kind: sent.kind,
            who: Who::Dashboard,
            profile,
            base_url: sent.host,
            target: sent.target,
            sent: sent.sent,
            key: sent.key,
            run: None,
            reserved_id: sent.reserved,
        };
        Some((gate, intent))
    }

    /// The runtime admitted write `id` (its intent is journaled under `ticket`).
    pub(crate) fn write_admitted(&mut self, id: RequestId, ticket: String) {
        if let Some(s) = self.safety.sent.get_mut(&id) {
            s.ticket = Some(ticket);
        }
    }
}
