//! Static shortest-path routing (fewest hops; ties go to the edge listed first).

use std::collections::VecDeque;

/// A link direction: link index * 2 + (0 for a -> b, 1 for b -> a).
pub type DirId = u32;

/// How a packet leaves a node towards its next hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// Over a point-to-point link direction.
    Link(DirId),
    /// Over an 802.11 channel, from one station to another.
    Wifi { channel: u32, from: u32, to: u32 },
}

/// Next hops towards the nodes packets are addressed to (the end points of flows): a column
/// per destination, so the table takes nodes x destinations entries, not nodes^2.
#[derive(Clone, Debug, Default)]
pub struct RouteTable {
    /// Columns: one per destination.
    k: usize,
    /// col[node] = the column of `node`, or `NO_COLUMN` if nothing is addressed to it.
    col: Vec<u32>,
    /// next[from * k + col[to]] = the hop to take from `from` towards `to`.
    next: Vec<Option<Hop>>,
}

const NO_COLUMN: u32 = u32::MAX;

impl RouteTable {
    /// Bytes of the table for `n` nodes and `destinations` distinct destinations.
    pub fn bytes(n: usize, destinations: usize) -> u128 {
        (n as u128) * (destinations as u128) * std::mem::size_of::<Option<Hop>>() as u128 + (n as u128) * 4
    }

    /// Breadth-first search from every destination in `dests` over the undirected graph
    /// whose edges are `(a, b, hop a -> b, hop b -> a)`.
    pub fn shortest_paths(n: usize, edges: impl Iterator<Item = (usize, usize, Hop, Hop)>, dests: &[usize]) -> Self {
        // adjacency: node -> [(neighbour, hop from node to neighbour)], in edge order
        let mut adj: Vec<Vec<(usize, Hop)>> = vec![Vec::new(); n];
        for (a, b, ab, ba) in edges {
            adj[a].push((b, ab));
            adj[b].push((a, ba));
        }
        let mut col = vec![NO_COLUMN; n];
        let mut k = 0;
        for &d in dests {
            if col[d] == NO_COLUMN {
                col[d] = k as u32;
                k += 1;
            }
        }
        let mut next = vec![None; n * k];
        let mut seen = vec![false; n];
        let mut queue = VecDeque::new();
        for dst in 0..n {
            let c = col[dst];
            if c == NO_COLUMN {
                continue;
            }
            // BFS from dst; a node's next hop is its first edge to its BFS parent.
            seen.iter_mut().for_each(|s| *s = false);
            seen[dst] = true;
            queue.push_back(dst);
            while let Some(u) = queue.pop_front() {
                for &(v, _) in &adj[u] {
                    if !seen[v] {
                        seen[v] = true;
                        next[v * k + c as usize] = adj[v].iter().find(|(w, _)| *w == u).map(|(_, h)| *h);
                        queue.push_back(v);
                    }
                }
            }
        }
        RouteTable { k, col, next }
    }

    /// The hop from `from` towards `to`; `None` without a path or if `to` was not among the
    /// destinations.
    pub fn next_hop(&self, from: usize, to: usize) -> Option<Hop> {
        match self.col.get(to) {
            Some(&c) if c != NO_COLUMN => self.next[from * self.k + c as usize],
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(pairs: &[(usize, usize)]) -> impl Iterator<Item = (usize, usize, Hop, Hop)> + '_ {
        pairs.iter().enumerate().map(|(i, &(a, b))| (a, b, Hop::Link((2 * i) as DirId), Hop::Link((2 * i + 1) as DirId)))
    }

    #[test]
    fn chain_routes_hop_by_hop_in_both_directions() {
        let r = RouteTable::shortest_paths(3, links(&[(0, 1), (1, 2)]), &[0, 1, 2]);
        assert_eq!(r.next_hop(0, 2), Some(Hop::Link(0))); // link 0, a -> b
        assert_eq!(r.next_hop(1, 2), Some(Hop::Link(2))); // link 1, a -> b
        assert_eq!(r.next_hop(2, 0), Some(Hop::Link(3))); // link 1, b -> a
        assert_eq!(r.next_hop(1, 0), Some(Hop::Link(1)));
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let r = RouteTable::shortest_paths(3, links(&[(0, 1)]), &[0, 1, 2]);
        assert_eq!(r.next_hop(0, 2), None);
    }

    #[test]
    fn fewest_hops_wins() {
        // 0-1-2-3 and a direct 0-3 link listed last.
        let r = RouteTable::shortest_paths(4, links(&[(0, 1), (1, 2), (2, 3), (0, 3)]), &[3]);
        assert_eq!(r.next_hop(0, 3), Some(Hop::Link(6)));
    }

    #[test]
    fn only_destinations_get_a_column() {
        let r = RouteTable::shortest_paths(3, links(&[(0, 1), (1, 2)]), &[2, 2]);
        assert_eq!(r.next_hop(0, 2), Some(Hop::Link(0)));
        assert_eq!(r.next_hop(2, 0), None);
        assert_eq!(r.next.len(), 3);
    }

    #[test]
    fn wifi_edges_route_like_links() {
        let wifi = [(0, 1, Hop::Wifi { channel: 0, from: 0, to: 1 }, Hop::Wifi { channel: 0, from: 1, to: 0 })];
        let r = RouteTable::shortest_paths(2, wifi.into_iter(), &[0, 1]);
        assert_eq!(r.next_hop(1, 0), Some(Hop::Wifi { channel: 0, from: 1, to: 0 }));
    }
}
