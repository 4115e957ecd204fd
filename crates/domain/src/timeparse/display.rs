//! The display clock: the zone every time shown to a person is read in (`crmdash_api::clock`).

pub use crmdash_api::clock::DisplayZone;

impl From<super::Zone> for DisplayZone {
    fn from(z: super::Zone) -> Self {
        match z {
            super::Zone::Local => DisplayZone::Local,
            super::Zone::Named(tz) => DisplayZone::Named(tz),
        }
    }
}
