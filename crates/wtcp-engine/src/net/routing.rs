//! Static shortest-path routing (fewest hops; ties go to the edge listed first).
//!
//! Sparse by construction: a *stub* node (every edge of it leads to one neighbour, as a
//! host on one access link) forwards everything over its first edge and needs no table;
//! only *transit* nodes (two or more neighbours) keep a row, with one 4-byte entry per
//! destination (the end points of flows). A dumbbell of 1000 flows thus holds 2 rows of
//! 2000 entries instead of 2002 x 2000. The table is built once per scenario and shared
//! by every run of it.

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

/// The undirected graph of nodes and the hops between them, in edge order.
#[derive(Clone, Debug)]
pub struct Topology {
    /// adj[node] = [(neighbour, hop from node to neighbour)], in the order edges were listed.
    adj: Vec<Vec<(u32, Hop)>>,
    /// transit[node]: the node has two or more distinct neighbours.
    transit: Vec<bool>,
}

impl Topology {
    /// `n` nodes joined by `edges` = `(a, b, hop a -> b, hop b -> a)`.
    pub fn new(n: usize, edges: impl Iterator<Item = (usize, usize, Hop, Hop)>) -> Self {
        let mut adj: Vec<Vec<(u32, Hop)>> = vec![Vec::new(); n];
        for (a, b, ab, ba) in edges {
            adj[a].push((b as u32, ab));
            adj[b].push((a as u32, ba));
        }
        let transit = adj.iter().map(|e| e.iter().any(|&(v, _)| v != e[0].0)).collect();
        Topology { adj, transit }
    }

    /// Nodes that keep a routing row (two or more distinct neighbours).
    pub fn transit_nodes(&self) -> usize {
        self.transit.iter().filter(|&&t| t).count()
    }

    /// Edge ends (twice the number of edges).
    pub fn edge_ends(&self) -> usize {
        self.adj.iter().map(Vec::len).sum()
    }
}

/// Next hops towards the nodes packets are addressed to (the end points of flows).
#[derive(Clone, Debug, Default)]
pub struct RouteTable {
    /// Destinations (columns of a row).
    k: usize,
    /// col[node] = the column of `node`, or `NONE` if nothing is addressed to it.
    col: Vec<u32>,
    /// route[node] = `STUB | hop index` for a stub, the row number for a transit node,
    /// `NONE` for a node without edges.
    route: Vec<u32>,
    /// component[node]: nodes with the same number are connected.
    component: Vec<u32>,
    /// rows[row * k + col[to]] = the hop index from that transit node towards `to`.
    rows: Vec<u32>,
    /// Every node's hops, flattened; a hop index points in here.
    hops: Vec<Hop>,
}

const NONE: u32 = u32::MAX;
const STUB: u32 = 1 << 31;

impl RouteTable {
    /// Bytes of the table for `n` nodes of which `transit` keep rows, and `destinations`
    /// distinct destinations.
    pub fn bytes(n: usize, transit: usize, destinations: usize) -> u128 {
        (transit as u128) * (destinations as u128) * 4 + (n as u128) * 12
    }

    /// Breadth-first search from every destination in `dests` (in order of first mention)
    /// over the transit nodes; a node's next hop is its first edge to its BFS parent.
    pub fn shortest_paths(topo: &Topology, dests: &[usize]) -> Self {
        let n = topo.adj.len();
        let mut col = vec![NONE; n];
        let mut k = 0;
        for &d in dests {
            if col[d] == NONE {
                col[d] = k as u32;
                k += 1;
            }
        }
        let mut hops = Vec::with_capacity(topo.edge_ends());
        let mut first_hop = Vec::with_capacity(n);
        for e in &topo.adj {
            first_hop.push(hops.len() as u32);
            hops.extend(e.iter().map(|&(_, h)| h));
        }
        let mut route = vec![NONE; n];
        let mut transit_rows = 0u32;
        for (v, e) in topo.adj.iter().enumerate() {
            if topo.transit[v] {
                route[v] = transit_rows;
                transit_rows += 1;
            } else if !e.is_empty() {
                route[v] = STUB | first_hop[v];
            }
        }
        let component = components(topo);
        let mut rows = vec![NONE; transit_rows as usize * k];
        // seen[v] == stamp: v was reached from the current destination (no reset per search).
        let mut seen = vec![0u32; n];
        let mut queue = VecDeque::new();
        for (dst, &c) in col.iter().enumerate() {
            if c == NONE {
                continue;
            }
            let stamp = c + 1;
            seen[dst] = stamp;
            queue.push_back(dst);
            while let Some(u) = queue.pop_front() {
                for &(v, _) in &topo.adj[u] {
                    let v = v as usize;
                    // A stub is never on another pair's path, and its own hop is implicit.
                    if seen[v] == stamp || !topo.transit[v] {
                        seen[v] = stamp;
                        continue;
                    }
                    seen[v] = stamp;
                    let i = topo.adj[v].iter().position(|&(w, _)| w as usize == u).expect("edges are symmetric");
                    rows[route[v] as usize * k + c as usize] = first_hop[v] + i as u32;
                    queue.push_back(v);
                }
            }
        }
        RouteTable { k, col, route, component, rows, hops }
    }

    /// The hop from `from` towards `to`; `None` without a path, for `from == to`, or if
    /// `to` was not among the destinations.
    #[inline]
    pub fn next_hop(&self, from: usize, to: usize) -> Option<Hop> {
        let c = *self.col.get(to)?;
        let r = self.route[from];
        if c == NONE || r == NONE || from == to {
            return None;
        }
        let h = if r & STUB != 0 {
            if self.component[from] != self.component[to] {
                return None;
            }
            r & !STUB
        } else {
            self.rows[r as usize * self.k + c as usize]
        };
        (h != NONE).then(|| self.hops[h as usize])
    }

    /// The hop from `from` towards `to` for a packet on a route that exists: `to` is a
    /// destination of the table, `from != to` and a path joins them (as for every packet of
    /// a flow, whose routes were checked when the scenario was resolved). Fewer loads than
    /// [`RouteTable::next_hop`]: a stub's hop is its first edge whatever the destination.
    #[inline]
    pub fn next_hop_on_route(&self, from: usize, to: usize) -> Hop {
        debug_assert_eq!(self.next_hop(from, to), Some(self.next_hop_unchecked(from, to)));
        self.next_hop_unchecked(from, to)
    }

    #[inline]
    fn next_hop_unchecked(&self, from: usize, to: usize) -> Hop {
        let r = self.route[from];
        let h = if r & STUB != 0 { r & !STUB } else { self.rows[r as usize * self.k + self.col[to] as usize] };
        self.hops[h as usize]
    }

    /// Bytes the table holds.
    pub fn heap_bytes(&self) -> usize {
        (self.col.len() + self.route.len() + self.component.len() + self.rows.len()) * 4 + self.hops.len() * std::mem::size_of::<Hop>()
    }
}

/// Connected components, numbered from 0.
fn components(topo: &Topology) -> Vec<u32> {
    let n = topo.adj.len();
    let mut comp = vec![NONE; n];
    let mut stack = Vec::new();
    let mut next = 0;
    for s in 0..n {
        if comp[s] != NONE {
            continue;
        }
        comp[s] = next;
        stack.push(s);
        while let Some(u) = stack.pop() {
            for &(v, _) in &topo.adj[u] {
                if comp[v as usize] == NONE {
                    comp[v as usize] = next;
                    stack.push(v as usize);
                }
            }
        }
        next += 1;
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(pairs: &[(usize, usize)]) -> impl Iterator<Item = (usize, usize, Hop, Hop)> + '_ {
        pairs.iter().enumerate().map(|(i, &(a, b))| (a, b, Hop::Link((2 * i) as DirId), Hop::Link((2 * i + 1) as DirId)))
    }

    fn table(n: usize, pairs: &[(usize, usize)], dests: &[usize]) -> RouteTable {
        RouteTable::shortest_paths(&Topology::new(n, links(pairs)), dests)
    }

    #[test]
    fn chain_routes_hop_by_hop_in_both_directions() {
        let r = table(3, &[(0, 1), (1, 2)], &[0, 1, 2]);
        assert_eq!(r.next_hop(0, 2), Some(Hop::Link(0))); // link 0, a -> b
        assert_eq!(r.next_hop(1, 2), Some(Hop::Link(2))); // link 1, a -> b
        assert_eq!(r.next_hop(2, 0), Some(Hop::Link(3))); // link 1, b -> a
        assert_eq!(r.next_hop(1, 0), Some(Hop::Link(1)));
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let r = table(3, &[(0, 1)], &[0, 1, 2]);
        assert_eq!(r.next_hop(0, 2), None);
        assert_eq!(r.next_hop(2, 0), None);
        let r = table(4, &[(0, 1), (2, 3)], &[0, 1, 2, 3]);
        assert_eq!(r.next_hop(0, 3), None, "a stub reaches only its own component");
        assert_eq!(r.next_hop(0, 1), Some(Hop::Link(0)));
    }

    #[test]
    fn fewest_hops_wins() {
        // 0-1-2-3 and a direct 0-3 link listed last.
        let r = table(4, &[(0, 1), (1, 2), (2, 3), (0, 3)], &[3]);
        assert_eq!(r.next_hop(0, 3), Some(Hop::Link(6)));
    }

    #[test]
    fn only_destinations_get_a_column() {
        let r = table(3, &[(0, 1), (1, 2)], &[2, 2]);
        assert_eq!(r.next_hop(0, 2), Some(Hop::Link(0)));
        assert_eq!(r.next_hop(2, 0), None);
        assert_eq!(r.rows.len(), 1, "one transit node, one destination");
    }

    #[test]
    fn parallel_links_to_one_neighbour_use_the_first() {
        let r = table(3, &[(0, 1), (0, 1), (1, 2)], &[0, 2]);
        assert_eq!(r.next_hop(0, 2), Some(Hop::Link(0)));
        assert_eq!(r.next_hop(1, 0), Some(Hop::Link(1)), "node 1's first edge to 0");
    }

    #[test]
    fn wifi_edges_route_like_links() {
        let wifi = [(0, 1, Hop::Wifi { channel: 0, from: 0, to: 1 }, Hop::Wifi { channel: 0, from: 1, to: 0 })];
        let r = RouteTable::shortest_paths(&Topology::new(2, wifi.into_iter()), &[0, 1]);
        assert_eq!(r.next_hop(1, 0), Some(Hop::Wifi { channel: 0, from: 1, to: 0 }));
    }

    /// The table agrees with a plain BFS over all nodes (the reference: a node's next hop
    /// is its first edge to the first neighbour that reached it), on random graphs.
    #[test]
    fn agrees_with_full_breadth_first_search() {
        let mut seed = 12345u64;
        let mut rnd = |m: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % m
        };
        for _ in 0..200 {
            let n = 2 + rnd(12);
            let m = rnd(2 * n);
            let pairs: Vec<(usize, usize)> = (0..m).map(|_| (rnd(n), rnd(n))).filter(|(a, b)| a != b).collect();
            let dests: Vec<usize> = (0..1 + rnd(n)).map(|_| rnd(n)).collect();
            let r = table(n, &pairs, &dests);
            let topo = Topology::new(n, links(&pairs));
            for &d in &dests {
                let mut parent = vec![None; n];
                let mut seen = vec![false; n];
                seen[d] = true;
                let mut q = VecDeque::from([d]);
                while let Some(u) = q.pop_front() {
                    for &(v, _) in &topo.adj[u] {
                        if !seen[v as usize] {
                            seen[v as usize] = true;
                            parent[v as usize] = topo.adj[v as usize].iter().find(|(w, _)| *w as usize == u).map(|(_, h)| *h);
                            q.push_back(v as usize);
                        }
                    }
                }
                for (from, want) in parent.iter().enumerate() {
                    assert_eq!(r.next_hop(from, d), *want, "from {from} to {d} in {pairs:?}");
                }
            }
        }
    }
}
