//! Static shortest-path routing (fewest hops; ties go to the link listed first).

use std::collections::VecDeque;

/// A link direction: link index * 2 + (0 for a -> b, 1 for b -> a).
pub type DirId = u32;

#[derive(Clone, Debug, Default)]
pub struct RouteTable {
    n: usize,
    /// next[from * n + to] = link direction to take from `from` towards `to`.
    next: Vec<Option<DirId>>,
}

impl RouteTable {
    /// Breadth-first search from every destination over the undirected link graph.
    pub fn shortest_paths(n: usize, links: impl Iterator<Item = (usize, usize)>) -> Self {
        // adjacency: node -> [(neighbour, direction from node to neighbour)], in link order
        let mut adj: Vec<Vec<(usize, DirId)>> = vec![Vec::new(); n];
        for (i, (a, b)) in links.enumerate() {
            adj[a].push((b, (i * 2) as DirId));
            adj[b].push((a, (i * 2 + 1) as DirId));
        }
        let mut next = vec![None; n * n];
        for dst in 0..n {
            // BFS from dst; a node's next hop is the direction to its BFS parent.
            let mut seen = vec![false; n];
            seen[dst] = true;
            let mut queue = VecDeque::from([dst]);
            while let Some(u) = queue.pop_front() {
                for &(v, _) in &adj[u] {
                    if !seen[v] {
                        seen[v] = true;
                        // The direction from v back to u: v's first link that reaches u.
                        let dir = adj[v].iter().find(|(w, _)| *w == u).map(|(_, d)| *d);
                        next[v * n + dst] = dir;
                        queue.push_back(v);
                    }
                }
            }
        }
        RouteTable { n, next }
    }

    pub fn next_hop(&self, from: usize, to: usize) -> Option<DirId> {
        self.next[from * self.n + to]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_routes_hop_by_hop_in_both_directions() {
        let r = RouteTable::shortest_paths(3, [(0, 1), (1, 2)].into_iter());
        assert_eq!(r.next_hop(0, 2), Some(0)); // link 0, a -> b
        assert_eq!(r.next_hop(1, 2), Some(2)); // link 1, a -> b
        assert_eq!(r.next_hop(2, 0), Some(3)); // link 1, b -> a
        assert_eq!(r.next_hop(1, 0), Some(1));
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let r = RouteTable::shortest_paths(3, [(0, 1)].into_iter());
        assert_eq!(r.next_hop(0, 2), None);
    }

    #[test]
    fn fewest_hops_wins() {
        // 0-1-2-3 and a direct 0-3 link listed last.
        let r = RouteTable::shortest_paths(4, [(0, 1), (1, 2), (2, 3), (0, 3)].into_iter());
        assert_eq!(r.next_hop(0, 3), Some(6));
    }
}
