//! A spec's permutations: its own, or every interleaving of its sessions' steps in the tester's order, their
//! count, and a reproducible draw of them.

use super::{Spec, Step};

impl Spec {
    /// The step named `name`: its session's index and the step.
    pub fn step(&self, name: &str) -> Option<(usize, &Step)> {
        self.sessions
            .iter()
            .enumerate()
            .find_map(|(i, s)| s.steps.iter().find(|st| st.name == name).map(|st| (i, st)))
    }

    /// The steps no permutation of the spec's own names, sorted by name as the tester sorts them (none when the
    /// spec lists no permutation: every interleaving runs them all).
    pub fn unused_steps(&self) -> Vec<&str> {
        let mut unused: Vec<&str> = self
            .sessions
            .iter()
            .flat_map(|s| &s.steps)
            .map(|s| s.name.as_str())
            .filter(|name| {
                !self.permutations.is_empty()
                    && !self.permutations.iter().flatten().any(|p| p == name)
            })
            .collect();
        unused.sort_unstable();
        unused
    }

    /// How many interleavings of the sessions' steps there are (each session's in its order): what runs when
    /// the spec lists no permutation. Saturates at `u128::MAX`.
    pub fn interleavings(&self) -> u128 {
        // The multinomial, built one session at a time: C(n + k, k) for each session's k steps.
        let mut total: u128 = 1;
        let mut n: u128 = 0;
        for session in &self.sessions {
            for k in 1..=session.steps.len() as u128 {
                n += 1;
                match total.checked_mul(n) {
                    Some(t) => total = t / k,
                    None => return u128::MAX,
                }
            }
        }
        total
    }

    /// `count` interleavings drawn at random, each as likely as any other, reproducibly from `seed` (an
    /// interleaving may be drawn twice when there are few).
    pub fn sampled(&self, count: usize, seed: u64) -> Vec<Vec<String>> {
        // xorshift stays at zero from zero: the one seed that would give it zero starts it elsewhere.
        let mut state = match seed ^ 0x9e37_79b9_7f4a_7c15 {
            0 => 0x9e37_79b9_7f4a_7c15,
            s => s,
        };
        let mut next = || {
            // xorshift64*: small, and the same on every machine.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        (0..count)
            .map(|_| {
                let mut left: Vec<usize> = self.sessions.iter().map(|s| s.steps.len()).collect();
                let mut out = Vec::new();
                // A session is picked in proportion to its steps left: every interleaving equally likely.
                while let Some(total) = Some(left.iter().sum::<usize>()).filter(|t| *t > 0) {
                    let mut pick = (next() % total as u64) as usize;
                    let s = left
                        .iter()
                        .position(|&l| {
                            if pick < l {
                                true
                            } else {
                                pick -= l;
                                false
                            }
                        })
                        .unwrap_or(0);
                    let done = self.sessions[s].steps.len() - left[s];
                    out.push(self.sessions[s].steps[done].name.clone());
                    left[s] -= 1;
                }
                out
            })
            .collect()
    }

    /// The permutations to run: the spec's own, or every interleaving of the sessions' steps (each session's in
    /// its order), in the order the isolation tester lists them.
    pub fn permutations(&self) -> Vec<Vec<String>> {
        if !self.permutations.is_empty() {
            return self.permutations.clone();
        }
        let mut out = Vec::new();
        let mut piles = vec![0; self.sessions.len()];
        let mut current = Vec::new();
        self.interleave(&mut piles, &mut current, &mut out);
        out
    }

    fn interleave(
        &self,
        piles: &mut [usize],
        current: &mut Vec<String>,
        out: &mut Vec<Vec<String>>,
    ) {
        let mut found = false;
        for i in 0..self.sessions.len() {
            if piles[i] < self.sessions[i].steps.len() {
                current.push(self.sessions[i].steps[piles[i]].name.clone());
                piles[i] += 1;
                self.interleave(piles, current, out);
                piles[i] -= 1;
                current.pop();
                found = true;
            }
        }
        if !found {
            out.push(current.clone());
        }
    }
}
