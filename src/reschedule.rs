//! reschedule (under construction)
