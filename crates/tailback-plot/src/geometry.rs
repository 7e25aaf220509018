//! Plane geometry in pixel space: clipping lines and polygons to a rectangle,
//! cutting lines into dashes and thinning dense lines.

/// A point in pixels (x to the right, y downwards).
pub(crate) type Px = (f64, f64);

/// An axis-aligned rectangle in pixels, edges included.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rect {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
}

impl Rect {
    /// The rectangle shrunk by `by` pixels on every side (never inverted: a
    /// rectangle too small to shrink collapses onto its centre).
    pub(crate) fn inset(self, by: f64) -> Self {
        let (cx, cy) = (
            (self.left + self.right) / 2.0,
            (self.top + self.bottom) / 2.0,
        );
        Self {
            left: (self.left + by).min(cx),
            top: (self.top + by).min(cy),
            right: (self.right - by).max(cx),
            bottom: (self.bottom - by).max(cy),
        }
    }

    /// Whether `p` lies inside or on the edge.
    pub(crate) fn contains(&self, (x, y): Px) -> bool {
        (self.left..=self.right).contains(&x) && (self.top..=self.bottom).contains(&y)
    }

    /// Whether the square of half size `half` centred on `p` lies inside.
    pub(crate) fn holds(&self, (x, y): Px, half: f64) -> bool {
        self.contains((x - half, y - half)) && self.contains((x + half, y + half))
    }
}

/// The part of the segment from `a` to `b` inside `rect` (Liang–Barsky);
/// an end inside the rectangle is returned unchanged.
fn clip_segment(a: Px, b: Px, rect: &Rect) -> Option<(Px, Px)> {
    if ![a.0, a.1, b.0, b.1].iter().all(|v| v.is_finite()) {
        return None;
    }
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut enter, mut leave) = (0.0f64, 1.0f64);
    // Each edge as (p, q): inside where p·t <= q.
    let edges = [
        (-dx, a.0 - rect.left),
        (dx, rect.right - a.0),
        (-dy, a.1 - rect.top),
        (dy, rect.bottom - a.1),
    ];
    for (p, q) in edges {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                enter = enter.max(t);
            } else {
                leave = leave.min(t);
            }
        }
    }
    if enter > leave {
        return None;
    }
    let at = |t: f64| (a.0 + t * dx, a.1 + t * dy);
    let start = if enter > 0.0 { at(enter) } else { a };
    let end = if leave < 1.0 { at(leave) } else { b };
    Some((start, end))
}

/// The parts of the polyline through `points` that lie inside `rect`, each
/// with at least two points.
pub(crate) fn clip_polyline(points: &[Px], rect: &Rect) -> Vec<Vec<Px>> {
    let mut pieces = Vec::new();
    let mut current: Vec<Px> = Vec::new();
    let mut flush = |current: &mut Vec<Px>| {
        if current.len() >= 2 {
            pieces.push(std::mem::take(current));
        } else {
            current.clear();
        }
    };
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        match clip_segment(a, b, rect) {
            None => flush(&mut current),
            Some((start, end)) => {
                if start != a || current.last() != Some(&a) {
                    flush(&mut current);
                    current.push(start);
                }
                current.push(end);
                if end != b {
                    flush(&mut current);
                }
            }
        }
    }
    flush(&mut current);
    pieces
}

/// The polygon `points` cut to `rect` (Sutherland–Hodgman); empty when
/// nothing of it is inside.
pub(crate) fn clip_polygon(points: &[Px], rect: &Rect) -> Vec<Px> {
    type Inside = fn(Px, &Rect) -> bool;
    type Cross = fn(Px, Px, &Rect) -> Px;
    fn lerp(a: Px, b: Px, t: f64) -> Px {
        (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1))
    }
    let edges: [(Inside, Cross); 4] = [
        (
            |p, r| p.0 >= r.left,
            |a, b, r| lerp(a, b, (r.left - a.0) / (b.0 - a.0)),
        ),
        (
            |p, r| p.0 <= r.right,
            |a, b, r| lerp(a, b, (r.right - a.0) / (b.0 - a.0)),
        ),
        (
            |p, r| p.1 >= r.top,
            |a, b, r| lerp(a, b, (r.top - a.1) / (b.1 - a.1)),
        ),
        (
            |p, r| p.1 <= r.bottom,
            |a, b, r| lerp(a, b, (r.bottom - a.1) / (b.1 - a.1)),
        ),
    ];
    let mut polygon = points.to_vec();
    for (inside, cross) in edges {
        let Some(&last) = polygon.last() else {
            break;
        };
        let mut clipped = Vec::with_capacity(polygon.len() + 4);
        let mut previous = last;
        for &p in &polygon {
            match (inside(previous, rect), inside(p, rect)) {
                (true, true) => clipped.push(p),
                (true, false) => clipped.push(cross(previous, p, rect)),
                (false, true) => {
                    clipped.push(cross(previous, p, rect));
                    clipped.push(p);
                }
                (false, false) => {}
            }
            previous = p;
        }
        polygon = clipped;
    }
    polygon
}

/// The dashes of the polyline `points` for `pattern` (lengths in pixels of
/// dash, gap, dash, gap, ...; empty for a solid line, which is returned whole).
pub(crate) fn dashes(points: &[Px], pattern: &[f64]) -> Vec<Vec<Px>> {
    if pattern.is_empty() || pattern.iter().any(|&l| l <= 0.0) {
        return if points.len() >= 2 {
            vec![points.to_vec()]
        } else {
            Vec::new()
        };
    }
    let mut pieces = Vec::new();
    let mut current: Vec<Px> = Vec::new();
    // Index into the pattern and length left of that entry.
    let (mut entry, mut left) = (0, pattern[0]);
    let on = |entry: usize| entry.is_multiple_of(2);
    for pair in points.windows(2) {
        let (mut a, b) = (pair[0], pair[1]);
        let mut length = (b.0 - a.0).hypot(b.1 - a.1);
        if !length.is_finite() {
            continue;
        }
        while length > left {
            let t = left / length;
            let cut = (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1));
            if on(entry) {
                if current.is_empty() {
                    current.push(a);
                }
                current.push(cut);
                pieces.push(std::mem::take(&mut current));
            }
            length -= left;
            a = cut;
            entry = (entry + 1) % pattern.len();
            left = pattern[entry];
        }
        left -= length;
        if on(entry) {
            if current.is_empty() {
                current.push(a);
            }
            current.push(b);
        }
    }
    if current.len() >= 2 {
        pieces.push(current);
    }
    pieces
}

/// `points` with runs of more than four consecutive points in one pixel
/// column reduced to the first, lowest, highest and last of them (in their
/// order): the line drawn through them covers the same pixels.
pub(crate) fn thin(points: &[Px]) -> Vec<Px> {
    let mut kept = Vec::with_capacity(points.len());
    let mut start = 0;
    while start < points.len() {
        let column = points[start].0.floor();
        let end = points[start..]
            .iter()
            .position(|p| p.0.floor() != column)
            .map_or(points.len(), |n| start + n);
        let run = &points[start..end];
        if run.len() <= 4 {
            kept.extend_from_slice(run);
        } else {
            let by_y = |a: &&(usize, &Px), b: &&(usize, &Px)| a.1.1.total_cmp(&b.1.1);
            let indexed: Vec<(usize, &Px)> = run.iter().enumerate().collect();
            let low = indexed.iter().min_by(by_y).map_or(0, |p| p.0);
            let high = indexed.iter().max_by(by_y).map_or(0, |p| p.0);
            let mut keep = [0, low, high, run.len() - 1];
            keep.sort_unstable();
            let mut previous = None;
            for i in keep {
                if previous != Some(i) {
                    kept.push(run[i]);
                    previous = Some(i);
                }
            }
        }
        start = end;
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQUARE: Rect = Rect {
        left: 0.0,
        top: 0.0,
        right: 10.0,
        bottom: 10.0,
    };

    #[test]
    fn polylines_are_cut_where_they_leave_the_rectangle() {
        let line = [
            (-5.0, 5.0),
            (5.0, 5.0),
            (5.0, 20.0),
            (8.0, 20.0),
            (8.0, 2.0),
        ];
        let pieces = clip_polyline(&line, &SQUARE);
        assert_eq!(
            pieces,
            [
                vec![(0.0, 5.0), (5.0, 5.0), (5.0, 10.0)],
                vec![(8.0, 10.0), (8.0, 2.0)]
            ]
        );
        assert!(clip_polyline(&[(20.0, 0.0), (30.0, 5.0)], &SQUARE).is_empty());
        assert!(clip_polyline(&[(f64::NAN, 0.0), (3.0, 5.0)], &SQUARE).is_empty());
        // Inside throughout: unchanged.
        let inside = [(1.0, 1.0), (2.0, 3.0), (9.0, 9.0)];
        assert_eq!(clip_polyline(&inside, &SQUARE), [inside.to_vec()]);
    }

    #[test]
    fn polygons_are_cut_to_the_rectangle() {
        let diamond = [(10.0, 3.0), (13.0, 6.0), (10.0, 9.0), (7.0, 6.0)];
        let clipped = clip_polygon(&diamond, &SQUARE);
        assert!(clipped.iter().all(|&p| SQUARE.contains(p)), "{clipped:?}");
        assert!(clipped.contains(&(7.0, 6.0)) && clipped.contains(&(10.0, 3.0)));
        assert!(clip_polygon(&[(20.0, 20.0), (30.0, 20.0), (25.0, 30.0)], &SQUARE).is_empty());
    }

    #[test]
    fn dashes_follow_the_pattern_across_corners() {
        let line = [(0.0, 0.0), (6.0, 0.0), (6.0, 6.0)];
        let pieces = dashes(&line, &[4.0, 2.0]);
        assert_eq!(
            pieces,
            [vec![(0.0, 0.0), (4.0, 0.0)], vec![(6.0, 0.0), (6.0, 4.0)],]
        );
        assert_eq!(dashes(&line, &[]), [line.to_vec()]);
    }

    #[test]
    fn thinning_keeps_the_extremes_of_each_column() {
        let column = [(3.1, 5.0), (3.2, 1.0), (3.3, 9.0), (3.4, 4.0), (3.5, 6.0)];
        let mut points = column.to_vec();
        points.push((4.0, 0.0));
        assert_eq!(
            thin(&points),
            [(3.1, 5.0), (3.2, 1.0), (3.3, 9.0), (3.5, 6.0), (4.0, 0.0)]
        );
        let sparse = [(1.0, 1.0), (2.0, 2.0)];
        assert_eq!(thin(&sparse), sparse);
    }

    #[test]
    fn inset_never_inverts() {
        let small = SQUARE.inset(8.0);
        assert_eq!((small.left, small.right), (5.0, 5.0));
        assert_eq!(SQUARE.inset(1.0).left, 1.0);
    }
}
