//! A report as it prints: its tables (header and rows of cells), the one table `csv` and
//! `jsonl` print, the JSON document `json`, `--jq` and `--template` read, and its notes (the
//! period, the history's start, the limits): a table's footer, or stderr.

use std::io::Write;

use chrono::DateTime;
use serde_json::{Map, Value, json};

use super::{DealReportArgs, ReportKind};
use crate::cli::summary::{Cell, write_table};
use crate::insights::reports::{
    History, LIMITS, forecast, stale, time_in_status, velocity, waterfall,
};
use crate::output::{Format, OutputError};
use crate::timeparse::Zone;

/// One table of a report.
pub struct Sheet {
    pub title: Option<String>,
    pub header: Vec<&'static str>,
    pub rows: Vec<Vec<Cell>>,
}

impl Sheet {
    fn new(header: Vec<&'static str>, rows: Vec<Vec<Cell>>) -> Sheet {
        Sheet {
            title: None,
            header,
            rows,
        }
    }

    /// Each row as an object of the header's keys.
    fn objects(&self) -> Vec<Value> {
        self.rows
            .iter()
            .map(|r| {
                let m: Map<String, Value> = self
                    .header
                    .iter()
                    .zip(r)
                    .map(|(h, c)| (h.to_string(), c.json()))
                    .collect();
                Value::Object(m)
            })
            .collect()
    }
}

/// A report ready to print.
pub struct Report {
    pub sheets: Vec<Sheet>,
    /// The sheet `csv` and `jsonl` print.
    pub flat: usize,
    pub json: Value,
    pub notes: Vec<String>,
}

/// A time in the notes, on the display clock with its zone.
fn utc(t: i64) -> String {
    crmdash_api::clock::get().format_labelled(DateTime::from_timestamp(t, 0).unwrap_or_default())
}

fn rfc3339(t: i64) -> String {
    crate::timeparse::to_utc_rfc3339(DateTime::from_timestamp(t, 0).unwrap_or_default())
}

fn opt(d: Option<rust_decimal::Decimal>) -> Cell {
    d.map_or(Cell::Empty, Cell::Number)
}

impl Report {
    pub fn build(args: &DealReportArgs, h: &History, from: i64, to: i64, zone: Zone) -> Report {
        let mut report = match args.kind {
            ReportKind::Waterfall => waterfall_report(h, from, to, args.deals),
            ReportKind::TimeInStatus => time_report(h),
            ReportKind::Velocity => velocity_report(h, from, to, zone),
            ReportKind::Forecast => forecast_report(h),
            ReportKind::Stale => stale_report(h, args.days),
        };
        let mut notes = Vec::new();
        if matches!(args.kind, ReportKind::Waterfall | ReportKind::Velocity) {
            notes.push(format!("period: {} to {}", utc(from), utc(to)));
            if from < h.from {
                notes.push(
                    "the period starts before the history: its start is the state first seen"
                        .to_string(),
                );
            }
        }
        notes.push(format!("{}: here from {}", LIMITS[0], utc(h.from)));
        notes.extend(LIMITS[1..].iter().map(|l| l.to_string()));
        notes.append(&mut report.notes);
        report.notes = notes;
        report
    }

    /// The JSON document, as one text.
    pub fn json_text(&self) -> String {
        self.json.to_string()
    }

    /// The notes on stderr, one a line (`note: …`).
    pub fn notes_to_stderr(&self) {
        let mut err = crate::output::stderr();
        for n in &self.notes {
            // A closed stderr is no reason to fail the report.
            let _ = writeln!(err, "note: {n}");
        }
    }

    pub fn write(&self, fmt: Format, w: &mut impl Write) -> Result<(), OutputError> {
        match fmt {
            Format::Json => {
                serde_json::to_writer_pretty(&mut *w, &self.json).map_err(std::io::Error::from)?;
                writeln!(w)?;
            }
            Format::Jsonl => {
                for o in self.sheets[self.flat].objects() {
                    serde_json::to_writer(&mut *w, &o).map_err(std::io::Error::from)?;
                    writeln!(w)?;
                }
            }
            Format::Csv => {
                let sheet = &self.sheets[self.flat];
                let mut c = crate::output::csv_writer_lf(&mut *w);
                c.write_record(&sheet.header)?;
                for r in &sheet.rows {
                    c.write_record(r.iter().map(Cell::plain))?;
                }
                c.flush()?;
            }
            Format::Table => self.write_tables(w)?,
        }
        Ok(())
    }

    fn write_tables(&self, w: &mut impl Write) -> std::io::Result<()> {
        for (i, s) in self.sheets.iter().enumerate() {
            if i > 0 {
                writeln!(w)?;
            }
            if let Some(t) = &s.title {
                writeln!(w, "{}", crate::output::sanitize_cell(t))?;
            }
            write_table(&s.header, &s.rows, w)?;
            if s.rows.is_empty() {
                writeln!(w, "(nothing in this report)")?;
            }
        }
        writeln!(w)?;
        for n in &self.notes {
            writeln!(w, "note: {}", crate::output::sanitize_cell(n))?;
        }
        Ok(())
    }
}

const WATERFALL: [&str; 9] = [
    "currency",
    "start",
    "created",
    "increased",
    "decreased",
    "won",
    "lost",
    "gone",
    "end",
];

fn waterfall_report(h: &History, from: i64, to: i64, with_deals: bool) -> Report {
    let ws = waterfall::waterfall(h, from, to, with_deals);
    let rows: Vec<Vec<Cell>> = ws
        .iter()
        .map(|w| {
            let mut r = vec![Cell::Text(w.currency.clone()), Cell::Amount(w.start)];
            r.extend(waterfall::Term::ALL.map(|t| Cell::Amount(w.term(t))));
            r.push(Cell::Amount(w.end));
            r
        })
        .collect();
    let totals = Sheet::new(WATERFALL.to_vec(), rows);
    let mut json = totals.objects();
    let mut sheets = vec![totals];
    if with_deals {
        let mut deal_rows = Vec::new();
        for (w, obj) in ws.iter().zip(json.iter_mut()) {
            let mut per = Map::new();
            for t in waterfall::Term::ALL {
                let list = w.deals.get(&t).map(Vec::as_slice).unwrap_or_default();
                let mut items = Vec::new();
                for d in list {
                    let cells = vec![
                        Cell::Text(w.currency.clone()),
                        Cell::Text(t.word().into()),
                        Cell::Text(d.id.clone()),
                        Cell::Text(d.name.clone()),
                        Cell::Amount(d.amount),
                    ];
                    items.push(json!({"id": d.id, "name": d.name, "amount": cells[4].json()}));
                    deal_rows.push(cells);
                }
                per.insert(t.word().to_string(), Value::Array(items));
            }
            if let Value::Object(o) = obj {
                o.insert("deals".into(), Value::Object(per));
            }
        }
        let mut sheet = Sheet::new(vec!["currency", "term", "id", "name", "amount"], deal_rows);
        sheet.title = Some("The deals behind each term".into());
        sheets.push(sheet);
    }
    Report {
        flat: sheets.len() - 1,
        sheets,
        json: Value::Array(json),
        notes: Vec::new(),
    }
}

fn time_report(h: &History) -> Report {
    let r = time_in_status::time_in_status(h, 10);
    let statuses = Sheet::new(
        vec!["status", "deals", "median_days", "p90_days"],
        r.statuses
            .iter()
            .map(|s| {
                vec![
                    Cell::Text(s.status.clone()),
                    Cell::Count(s.deals),
                    Cell::Number(s.median_days),
                    Cell::Number(s.p90_days),
                ]
            })
            .collect(),
    );
    let mut longest = Sheet::new(
        vec!["id", "name", "status", "value", "currency", "since", "days"],
        r.longest
            .iter()
            .map(|l| {
                vec![
                    Cell::Text(l.id.clone()),
                    Cell::Text(l.name.clone()),
                    Cell::Text(l.status.clone()),
                    Cell::Amount(l.value),
                    Cell::Text(l.currency.clone()),
                    Cell::Text(rfc3339(l.since)),
                    Cell::Number(l.days),
                ]
            })
            .collect(),
    );
    longest.title = Some("Open deals longest in their status".into());
    let json = json!({"statuses": statuses.objects(), "longest": longest.objects()});
    Report {
        sheets: vec![statuses, longest],
        flat: 0,
        json,
        notes: vec![
            "times are lower bounds: counted from the first sync, or from the sync that saw the deal first"
                .to_string(),
        ],
    }
}

fn velocity_report(h: &History, from: i64, to: i64, zone: Zone) -> Report {
    let rows = velocity::velocity(h, from, to, zone)
        .into_iter()
        .map(|r| {
            vec![
                Cell::Text(r.month.format("%Y-%m").to_string()),
                Cell::Text(r.currency.clone()),
                Cell::Count(r.won),
                Cell::Amount(r.won_value),
                Cell::Count(r.lost),
                Cell::Amount(r.lost_value),
                opt(r.win_rate()),
                opt(r.avg_days_to_win()),
            ]
        })
        .collect();
    let sheet = Sheet::new(
        vec![
            "month",
            "currency",
            "won",
            "won_value",
            "lost",
            "lost_value",
            "win_rate",
            "avg_days_to_win",
        ],
        rows,
    );
    single(sheet, Vec::new())
}

fn single(sheet: Sheet, notes: Vec<String>) -> Report {
    Report {
        json: Value::Array(sheet.objects()),
        sheets: vec![sheet],
        flat: 0,
        notes,
    }
}

fn forecast_report(h: &History) -> Report {
    let rows: Vec<forecast::ForecastRow> = forecast::forecast(h);
    let cells = rows
        .iter()
        .map(|r| {
            vec![
                Cell::Text(r.status.clone()),
                Cell::Text(r.currency.clone()),
                Cell::Count(r.deals),
                Cell::Amount(r.open_value),
                Cell::Count(r.history.closed),
                Cell::Count(r.history.won),
                opt(r.history.rate()),
                r.weighted.map_or(Cell::Empty, Cell::Amount),
                r.note().map_or(Cell::Empty, Cell::Text),
            ]
        })
        .collect();
    let sheet = Sheet::new(
        vec![
            "status",
            "currency",
            "deals",
            "open_value",
            "closed_from_status",
            "won_from_status",
            "win_rate",
            "weighted",
            "note",
        ],
        cells,
    );
    single(
        sheet,
        vec![format!(
            "a status's win rate is used from {} closed deals seen in it; weighted = open value × rate",
            forecast::MIN_CLOSED
        )],
    )
}

fn stale_report(h: &History, days: u32) -> Report {
    let rows = stale::stale(h, days)
        .into_iter()
        .map(|d| {
            vec![
                Cell::Text(d.currency),
                Cell::Count(d.rank),
                Cell::Text(d.id),
                Cell::Text(d.name),
                Cell::Text(d.status),
                Cell::Amount(d.value),
                Cell::Text(rfc3339(d.last_change)),
                Cell::Count(u64::try_from(d.days).unwrap_or(0)),
            ]
        })
        .collect();
    let sheet = Sheet::new(
        vec![
            "currency",
            "rank",
            "id",
            "name",
            "status",
            "value",
            "last_change",
            "days",
        ],
        rows,
    );
    single(
        sheet,
        vec![format!(
            "open deals without an update for {days} days or more, by value × days quiet within each currency"
        )],
    )
}
