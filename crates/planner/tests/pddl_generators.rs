//! `Generator::PddlGenerators` against pddl-generators ddffd0eb itself: every
//! (parameters, seed) of `fixtures/pddl-generators-ddffd0e.tsv` (digests of
//! the real programs' output, written by
//! `tools/reference/pddl_generators_digests.py`) must give the same text, byte
//! for byte; and the full problems of `fixtures/pddl-generators-ddffd0e/`
//! show a line diff when they do not.

use std::path::{Path, PathBuf};

use planner::generate::{generate_with, Generator, ParamValues, Params};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Parameters from the fixture's `name=value,...` column.
fn params(domain: &str, text: &str) -> Params {
    let info = planner::generate::domain(domain).unwrap_or_else(|| panic!("unknown domain {domain}"));
    let mut values = ParamValues::new();
    for pair in text.split(',') {
        let (name, value) = pair.split_once('=').unwrap_or_else(|| panic!("bad parameter {pair:?}"));
        let p = info.param(name).unwrap_or_else(|| panic!("{domain} has no parameter {name}"));
        values.set(p.name, p.parse(value).unwrap());
    }
    info.make(&values).unwrap_or_else(|e| panic!("{domain} {text}: {e}"))
}

/// The fixture's second digest: the text's whitespace-separated tokens.
fn tokens(text: &str) -> String {
    text.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn every_digest_matches() {
    let table = std::fs::read_to_string(fixtures().join("pddl-generators-ddffd0e.tsv")).unwrap();
    let (mut total, mut failures) = (0, vec![]);
    let mut per_domain = std::collections::BTreeMap::<&str, usize>::new();
    for line in table.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 5, "{line}");
        let (domain, seed) = (cols[0], cols[2].parse::<u64>().unwrap());
        let p = params(domain, cols[1]);
        let text = generate_with(&p, seed, Generator::PddlGenerators).unwrap_or_else(|e| panic!("{line}: {e}"));
        total += 1;
        *per_domain.entry(domain).or_default() += 1;
        if sha256_hex(text.as_bytes()) != cols[3] {
            let tokens_too =
                if sha256_hex(tokens(&text).as_bytes()) == cols[4] { "same tokens" } else { "other tokens" };
            failures.push(format!("{domain} {} seed {seed}: other text ({tokens_too})", cols[1]));
        }
    }
    // Each domain over the paper's ranges (the script's 200+ cases each).
    assert_eq!(per_domain.keys().copied().collect::<Vec<_>>(), ["blocksworld", "ferry", "gripper", "visitall"]);
    assert!(per_domain.values().all(|&n| n >= 200), "{per_domain:?}");
    assert!(failures.is_empty(), "{} of {total} differ:\n{}", failures.len(), failures.join("\n"));
}

/// The full problems the script keeps (its `FULL`), one per domain.
#[test]
fn full_problems_match() {
    let full = [
        ("blocksworld-blocks8-s3001.pddl", Params::Blocksworld { blocks: 8 }, 3001),
        ("ferry-locations4-cars5-s2001.pddl", Params::Ferry { locations: 4, cars: 5 }, 2001),
        ("gripper-balls6-s7000.pddl", Params::Gripper { balls: 6 }, 7000),
        ("visitall-size4-ratio0.5-s5002.pddl", Params::Visitall { size: 4, ratio: 0.5, height: None }, 5002),
    ];
    let dir = fixtures().join("pddl-generators-ddffd0e");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), full.len(), "{} holds other files", dir.display());
    for (file, p, seed) in full {
        let expected = std::fs::read_to_string(dir.join(file)).unwrap();
        let ours = generate_with(&p, seed, Generator::PddlGenerators).unwrap();
        assert!(ours == expected, "{file}: ours differs\n{}", line_diff(&expected, &ours));
    }
}

/// Eight lines of `expected` (-) against `ours` (+) from the first difference.
fn line_diff(expected: &str, ours: &str) -> String {
    let (e, o): (Vec<&str>, Vec<&str>) = (expected.split('\n').collect(), ours.split('\n').collect());
    let first = e.iter().zip(&o).position(|(a, b)| a != b).unwrap_or(e.len().min(o.len()));
    let mut out = format!("first difference at line {}:\n", first + 1);
    for i in first..(first + 8).min(e.len().max(o.len())) {
        let (a, b) = (e.get(i).unwrap_or(&"<end>"), o.get(i).unwrap_or(&"<end>"));
        if a == b {
            out.push_str(&format!("  {a:?}\n"));
        } else {
            out.push_str(&format!("- {a:?}\n+ {b:?}\n"));
        }
    }
    out
}

/// SHA-256 (FIPS 180-4), for the fixture's digests; the planner crate has no
/// hashing dependency and needs none but here.
fn sha256_hex(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
        0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
        0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
        0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] =
        [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes(word.try_into().unwrap());
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7].wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [t1.wrapping_add(t2), v[0], v[1], v[2], v[3].wrapping_add(t1), v[4], v[5], v[6]];
        }
        for (a, b) in h.iter_mut().zip(v) {
            *a = a.wrapping_add(b);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

#[test]
fn sha256_known_answers() {
    assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // Two blocks of padding.
    let long = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    assert_eq!(sha256_hex(long), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
