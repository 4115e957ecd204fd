use std::collections::HashMap;

use serde_json::{Map, Value};

use super::*;
use crate::sandbox::{DEFAULT_SEED, Dataset, PlantKind};

fn person(id: &str, name: &str, email: &str, phone: &str, accounts: &[&str]) -> Person {
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    Person {
        id: id.to_string(),
        name: name.to_string(),
        email: opt(email),
        phone: opt(phone),
        accounts: accounts.iter().map(|a| a.to_string()).collect(),
        created_at: None,
    }
}

fn de() -> Option<phonenumber::country::Id> {
    normalise::region(Some("DE"))
}

/// The one pair of two people, scored with the default settings.
fn pair(a: Person, b: Person) -> Option<Pair> {
    find(&[a, b], de(), &DupesSettings::default(), 0.0)
        .pairs
        .into_iter()
        .next()
}

#[test]
fn each_kind_of_near_duplicate_is_found_with_its_reason_above_the_threshold() {
    let t = DEFAULT_THRESHOLD;
    let cases = [
        (
            person("1", "Jon Smith", "JSmith@Example.com", "", &[]),
            person("2", "John Smith", "jsmith@example.com", "", &[]),
            "same email in another case",
        ),
        (
            person("1", "Ada Byron", "ada.byron@gmail.com", "", &[]),
            person("2", "Ada Byron", "adabyron+crm@gmail.com", "", &[]),
            "same Gmail address (dots, +tag ignored)",
        ),
        (
            person("1", "Jürgen Weiß", "", "+49 30 1234567", &[]),
            person("2", "Jürgen Weiß", "", "030 1234567", &[]),
            "same phone",
        ),
        (
            person("1", "Hannah Zimmermann", "", "", &["acc_1"]),
            person("2", "Hannah Zimmremann", "", "", &["acc_1"]),
            "name 0.9",
        ),
        (
            person("1", "John Smith", "", "", &["acc_1"]),
            person("2", "Smith, John", "", "", &["acc_1", "acc_2"]),
            "name 1.00 + same account",
        ),
        (
            person("1", "Jürgen Müller", "", "", &["acc_1"]),
            person("2", "JURGEN MULLER", "", "", &["acc_1"]),
            "name 1.00 + same account",
        ),
    ];
    for (a, b, reason) in cases {
        let shown = format!("{} / {}", a.name, b.name);
        let p = pair(a, b).unwrap_or_else(|| panic!("{shown}: not found"));
        assert!(p.score >= t, "{shown}: score {} below {t}", p.score);
        assert!(
            p.reasons.iter().any(|r| r.starts_with(reason)),
            "{shown}: {:?} lacks {reason}",
            p.reasons
        );
    }
}

#[test]
fn look_alikes_who_are_different_people_stay_apart() {
    // The same name, another account, email and phone.
    let a = person(
        "1",
        "Anna Müller",
        "anna@web.de",
        "+49 30 1111111",
        &["acc_1"],
    );
    let b = person(
        "2",
        "Anna Müller",
        "a.mueller@gmx.de",
        "+49 89 2222222",
        &["acc_2"],
    );
    assert!(pair(a.clone(), b.clone()).is_none());
    // One switchboard number, two clearly different people: listed, but below the threshold.
    let c = person("3", "Lukas Fischer", "", "+49 30 1111111", &[]);
    let p = pair(a, c).unwrap();
    assert!(p.score < DEFAULT_THRESHOLD, "{p:?}");
    assert!(p.reasons.iter().any(|r| r.starts_with("names differ")));
}

#[test]
fn clusters_join_transitively_and_are_the_same_whatever_the_input_order() {
    let people = vec![
        person("c", "Ana Silva", "ana@uol.com.br", "", &[]),
        person("a", "Ana Silva", "", "+55 11 91234-5678", &[]),
        person("b", "Ana Silva", "ANA@uol.com.br", "0055 11 912345678", &[]),
        person("d", "Caio Lima", "caio@uol.com.br", "", &[]),
        person("e", "Caio Lima", "Caio@UOL.com.br", "", &[]),
    ];
    let ids = |people: &[Person]| -> Vec<Vec<String>> {
        let s = DupesSettings::default();
        let found = find(people, None, &s, s.threshold);
        clusters(people, &found.pairs, s.threshold)
            .iter()
            .map(|c| c.members.iter().map(|&i| people[i].id.clone()).collect())
            .collect()
    };
    let first = ids(&people);
    assert_eq!(first, [vec!["a", "b", "c"], vec!["d", "e"]]);
    let mut reversed = people.clone();
    reversed.reverse();
    assert_eq!(ids(&reversed), first);
    let mut rotated = people;
    rotated.rotate_left(2);
    assert_eq!(ids(&rotated), first);
}

fn person_of(c: &Map<String, Value>) -> Person {
    let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
    let accounts: Vec<&str> = c
        .get("account_ids")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    person(s("id"), s("full_name"), s("email"), s("phone"), &accounts)
}

/// Precision and recall of the default settings on the sandbox's labelled set: a found pair
/// is right when both contacts are one labelled person; a labelled pair is found when both
/// end in one cluster.
#[test]
fn the_default_threshold_meets_the_targets_on_the_labelled_set() {
    let mut ds = Dataset::load(DEFAULT_SEED, 1000).unwrap();
    let planted = ds.plant_near_duplicates(DEFAULT_SEED);
    assert_eq!(planted.len(), 50);
    for kind in PlantKind::ALL {
        assert!(
            planted.iter().any(|p| p.kind == kind),
            "{kind:?} not planted"
        );
    }
    let truth = ds.labelled_duplicates(&planted);
    let people: Vec<Person> = ds.contacts.iter().map(person_of).collect();
    let index: HashMap<&str, usize> = people
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id.as_str(), i))
        .collect();
    // The labelled people: union of the labelled pairs.
    let mut person_of_label: Vec<usize> = (0..people.len()).collect();
    fn up(v: &mut [usize], mut i: usize) -> usize {
        while v[i] != i {
            i = v[i];
        }
        i
    }
    for (a, b) in &truth {
        let (ra, rb) = (
            up(&mut person_of_label, index[a.as_str()]),
            up(&mut person_of_label, index[b.as_str()]),
        );
        person_of_label[ra] = rb;
    }
    // How the threshold was chosen: precision and recall along it.
    let all = find(&people, de(), &DupesSettings::default(), 0.0);
    for t in [0.5, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0] {
        let pairs: Vec<Pair> = all.pairs.iter().filter(|p| p.score >= t).cloned().collect();
        let ok = pairs
            .iter()
            .filter(|p| up(&mut person_of_label, p.a) == up(&mut person_of_label, p.b))
            .count();
        let cl = clusters(&people, &pairs, t);
        let mut of = HashMap::new();
        for (n, c) in cl.iter().enumerate() {
            for &m in &c.members {
                of.insert(m, n);
            }
        }
        let hit = truth
            .iter()
            .filter(|(a, b)| {
                let (a, b) = (index[a.as_str()], index[b.as_str()]);
                of.contains_key(&a) && of.get(&a) == of.get(&b)
            })
            .count();
        eprintln!(
            "threshold {t:.2}: {} pairs, precision {:.3}, recall {:.3}",
            pairs.len(),
            ok as f64 / pairs.len().max(1) as f64,
            hit as f64 / truth.len() as f64
        );
    }
    let s = DupesSettings::default();
    let found = find(&people, de(), &s, s.threshold);
    let right = found
        .pairs
        .iter()
        .filter(|p| up(&mut person_of_label, p.a) == up(&mut person_of_label, p.b))
        .count();
    let wrong: Vec<String> = found
        .pairs
        .iter()
        .filter(|p| up(&mut person_of_label, p.a) != up(&mut person_of_label, p.b))
        .map(|p| {
            format!(
                "{} {} ~ {} {} {:.2} {:?}",
                people[p.a].id,
                people[p.a].name,
                people[p.b].id,
                people[p.b].name,
                p.score,
                p.reasons
            )
        })
        .collect();
    let cl = clusters(&people, &found.pairs, s.threshold);
    let mut cluster_of = HashMap::new();
    for (n, c) in cl.iter().enumerate() {
        for &m in &c.members {
            cluster_of.insert(m, n);
        }
    }
    let missed: Vec<&(String, String)> = truth
        .iter()
        .filter(|(a, b)| {
            let (a, b) = (index[a.as_str()], index[b.as_str()]);
            !cluster_of.contains_key(&a) || cluster_of.get(&a) != cluster_of.get(&b)
        })
        .collect();
    let precision = right as f64 / found.pairs.len().max(1) as f64;
    let recall = 1.0 - missed.len() as f64 / truth.len() as f64;
    eprintln!(
        "labelled set: {} contacts, {} labelled pairs, {} found pairs, {} compared; precision {precision:.3}, recall {recall:.3}",
        people.len(),
        truth.len(),
        found.pairs.len(),
        found.compared
    );
    eprintln!("wrong: {wrong:#?}\nmissed: {missed:#?}");
    assert!(precision >= 0.95, "precision {precision:.3}");
    assert!(recall >= 0.90, "recall {recall:.3}");
    // The look-alikes are never joined to the contact they copy.
    for p in planted.iter().filter(|p| !p.kind.is_duplicate()) {
        let (a, b) = (index[p.original.as_str()], index[p.id.as_str()]);
        assert!(!cluster_of.contains_key(&a) || cluster_of.get(&a) != cluster_of.get(&b));
    }
}
