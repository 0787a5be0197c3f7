//! Rule points: how often each numbered clause of a rule book fires in play.
//!
//! Every clause of a game's rule book that can fire in play has an id of the
//! form `XX-Pn` (`T5-P7`: Take 5's seventh rule point; see `docs/rules/`).
//! A game's rules mark each such clause where it happens with
//! [`fired!`](crate::fired), and the Python reference does the same with the
//! same ids, so the two engines can be compared on what fired, not only on
//! what came out.
//!
//! Counting must cost nothing in plain play. So a game's state is generic
//! over a [`Count`]: the default, [`Uncounted`], does nothing and compiles
//! away, so the states that `cardref.load`, `simulate` and the tournaments
//! use are the same machine code as without the marks; [`Counted`] keeps a
//! counter per point inside the state. The counted states exist only where
//! rule points are asked for (`cardref verify`, `cardref analyze`), through
//! `crate::games::dispatch_counted`. Counts live in the state, so the
//! search bot's rollouts, which play on copies, never add to a game's counts.

use std::fmt::Debug;

/// The most rule points a game may number (`XX-P1` … `XX-P64`).
pub const MAX_POINTS: usize = 64;

/// Where a state's rule points go: nowhere ([`Uncounted`]) or into counters
/// ([`Counted`]).
pub trait Count: Clone + Debug + Default + Send + Sync + 'static {
    /// Whether this kind counts: lets a rule skip work done only to decide
    /// which point fired (a constant, so the test compiles away).
    const ON: bool;

    /// Point `index` (`XX-P{index + 1}`) fired once.
    fn hit(&mut self, index: usize);

    /// Adds the counts so far into `out` (by point index) and starts again from zero.
    fn drain_into(&mut self, out: &mut [u64]);
}

/// Plain play: rule points are not counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Uncounted;

impl Count for Uncounted {
    const ON: bool = false;

    #[inline(always)]
    fn hit(&mut self, _index: usize) {}

    #[inline(always)]
    fn drain_into(&mut self, _out: &mut [u64]) {}
}

/// A counter per rule point, kept in the state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted([u32; MAX_POINTS]);

impl Default for Counted {
    fn default() -> Self {
        Counted([0; MAX_POINTS])
    }
}

impl Count for Counted {
    const ON: bool = true;

    #[inline]
    fn hit(&mut self, index: usize) {
        self.0[index] += 1;
    }

    fn drain_into(&mut self, out: &mut [u64]) {
        for (total, n) in out.iter_mut().zip(self.0.iter_mut()) {
            *total += u64::from(*n);
            *n = 0;
        }
    }
}

/// The index of rule point `id` (`"T5-P7"` → 6), at compile time: a
/// malformed id, or a number out of 1 ..= [`MAX_POINTS`], does not compile.
pub const fn index(id: &str) -> usize {
    let bytes = id.as_bytes();
    let mut i = 0;
    while i < bytes.len() && bytes[i] != b'-' {
        i += 1;
    }
    assert!(
        i + 2 < bytes.len() && bytes[i + 1] == b'P',
        "a rule point is written XX-Pn"
    );
    let mut n = 0;
    let mut j = i + 2;
    while j < bytes.len() {
        assert!(bytes[j].is_ascii_digit(), "a rule point is written XX-Pn");
        n = n * 10 + (bytes[j] - b'0') as usize;
        j += 1;
    }
    assert!(
        n >= 1 && n <= MAX_POINTS,
        "rule points are numbered from 1 to MAX_POINTS"
    );
    n - 1
}

/// The id of point `index` of the game whose rule ids start with `prefix`.
pub fn id(prefix: &str, index: usize) -> String {
    format!("{prefix}-P{}", index + 1)
}

/// Counts point `index` in `count` if it counts; for [`Uncounted`] the test
/// is a constant and the call is gone before the compiler weighs inlining the
/// function around it, so plain play is compiled as if no mark were there.
#[inline(always)]
pub fn fire<C: Count>(count: &mut C, index: usize) {
    if C::ON {
        count.hit(index);
    }
}

/// Marks a rule point where its clause fires: `fired!(self.count, "T5-P7")`.
/// Nothing at all in an uncounted state.
#[macro_export]
macro_rules! fired {
    ($count:expr, $id:literal) => {{
        const POINT: usize = $crate::points::index($id);
        $crate::points::fire(&mut $count, POINT)
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_their_index() {
        assert_eq!(index("T5-P1"), 0);
        assert_eq!(index("FA-P12"), 11);
        assert_eq!(id("T5", 6), "T5-P7");
    }

    #[test]
    fn counts_drain_and_restart() {
        let mut c = Counted::default();
        fired!(c, "T5-P2");
        fired!(c, "T5-P2");
        fired!(c, "T5-P64");
        let mut out = vec![0u64; MAX_POINTS];
        c.drain_into(&mut out);
        assert_eq!((out[1], out[63], out.iter().sum::<u64>()), (2, 1, 3));
        c.drain_into(&mut out);
        assert_eq!(out.iter().sum::<u64>(), 3, "drained counts start from zero");
        let mut none = Uncounted;
        fired!(none, "T5-P2");
        none.drain_into(&mut out);
        assert_eq!(out.iter().sum::<u64>(), 3);
    }
}
