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

#[derive(Clone, Debug, Default)]
pub struct RouteTable {
    n: usize,
    /// next[from * n + to] = the hop to take from `from` towards `to`.
    next: Vec<Option<Hop>>,
}

impl RouteTable {
    /// Breadth-first search from every destination over the undirected graph whose edges
    /// are `(a, b, hop a -> b, hop b -> a)`.
    pub fn shortest_paths(n: usize, edges: impl Iterator<Item = (usize, usize, Hop, Hop)>) -> Self {
        // adjacency: node -> [(neighbour, hop from node to neighbour)], in edge order
        let mut adj: Vec<Vec<(usize, Hop)>> = vec![Vec::new(); n];
        for (a, b, ab, ba) in edges {
            adj[a].push((b, ab));
            adj[b].push((a, ba));
        }
        let mut next = vec![None; n * n];
        for dst in 0..n {
            // BFS from dst; a node's next hop is its first edge to its BFS parent.
            let mut seen = vec![false; n];
            seen[dst] = true;
            let mut queue = VecDeque::from([dst]);
            while let Some(u) = queue.pop_front() {
                for &(v, _) in &adj[u] {
                    if !seen[v] {
                        seen[v] = true;
                        next[v * n + dst] = adj[v].iter().find(|(w, _)| *w == u).map(|(_, h)| *h);
                        queue.push_back(v);
                    }
                }
            }
        }
        RouteTable { n, next }
    }

    pub fn next_hop(&self, from: usize, to: usize) -> Option<Hop> {
        self.next[from * self.n + to]
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
        let r = RouteTable::shortest_paths(3, links(&[(0, 1), (1, 2)]));
        assert_eq!(r.next_hop(0, 2), Some(Hop::Link(0))); // link 0, a -> b
        assert_eq!(r.next_hop(1, 2), Some(Hop::Link(2))); // link 1, a -> b
        assert_eq!(r.next_hop(2, 0), Some(Hop::Link(3))); // link 1, b -> a
        assert_eq!(r.next_hop(1, 0), Some(Hop::Link(1)));
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let r = RouteTable::shortest_paths(3, links(&[(0, 1)]));
        assert_eq!(r.next_hop(0, 2), None);
    }

    #[test]
    fn fewest_hops_wins() {
        // 0-1-2-3 and a direct 0-3 link listed last.
        let r = RouteTable::shortest_paths(4, links(&[(0, 1), (1, 2), (2, 3), (0, 3)]));
        assert_eq!(r.next_hop(0, 3), Some(Hop::Link(6)));
    }

    #[test]
    fn wifi_edges_route_like_links() {
        let wifi = [(0, 1, Hop::Wifi { channel: 0, from: 0, to: 1 }, Hop::Wifi { channel: 0, from: 1, to: 0 })];
        let r = RouteTable::shortest_paths(2, wifi.into_iter());
        assert_eq!(r.next_hop(1, 0), Some(Hop::Wifi { channel: 0, from: 1, to: 0 }));
    }
}
