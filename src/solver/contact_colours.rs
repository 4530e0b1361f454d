//! Colours of the contact graph for graph-coloured projected Gauss-Seidel: contacts of one
//! colour share no moving body, so the blocks A_ij between them are zero and every contact of a
//! colour can be solved at once (one pass, or one barrier, per colour) with the result of a
//! sequential sweep in colour order.

/// The colour of each contact (its moving bodies `(a, b)`, `None` for the ground, which joins
/// nothing) and the number of colours: greedily, in the contacts' order, the smallest colour
/// neither body has yet. A body with d contacts needs d colours, so a cube of the wall (two
/// cubes above and two below, up to four points each) needs about 16.
pub fn contact_colours(
    pairs: impl IntoIterator<Item = (Option<usize>, Option<usize>)>,
    bodies: usize,
) -> (Vec<u32>, usize) {
    // Each body's colours taken so far, 64 a word.
    let mut taken: Vec<Vec<u64>> = vec![Vec::new(); bodies];
    let mut count = 0;
    let colours = pairs
        .into_iter()
        .map(|(a, b)| {
            let word =
                |k: Option<usize>, w: usize| k.and_then(|k| taken[k].get(w).copied()).unwrap_or(0);
            let mut w = 0;
            let free = loop {
                let used = word(a, w) | word(b, w);
                if used != u64::MAX {
                    break 64 * w + used.trailing_ones() as usize;
                }
                w += 1;
            };
            for k in [a, b].into_iter().flatten() {
                let words = &mut taken[k];
                if words.len() <= free / 64 {
                    words.resize(free / 64 + 1, 0);
                }
                words[free / 64] |= 1 << (free % 64);
            }
            count = count.max(free + 1);
            free as u32
        })
        .collect();
    (colours, count)
}

#[cfg(test)]
mod tests {
    use super::contact_colours;

    #[test]
    fn contacts_of_one_colour_share_no_body() {
        // A chain 0-1-2 with two points per pair and the ground under 0 and 2.
        let pairs = [
            (Some(0), None),
            (Some(0), Some(1)),
            (Some(0), Some(1)),
            (Some(1), Some(2)),
            (Some(1), Some(2)),
            (Some(2), None),
        ];
        let (colours, count) = contact_colours(pairs, 3);
        assert_eq!(colours, [0, 1, 2, 0, 3, 1]);
        assert_eq!(count, 4);
        // Past 64 colours: 70 contacts on one pair.
        let (colours, count) = contact_colours(vec![(Some(0), Some(1)); 70], 2);
        assert_eq!(colours, (0..70).collect::<Vec<u32>>());
        assert_eq!(count, 70);
    }
}
