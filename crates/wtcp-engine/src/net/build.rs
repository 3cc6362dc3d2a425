//! The scenario's link directions and their scheduled impairments, built once for every
//! engine that moves packets over them: the simulator (`sim.rs`) and the real-time relay
//! of the Linux engine (`wtcp-linux`), so both apply the same links, queues, loss models,
//! outages and delay spikes with the same random streams.

use super::link::LinkDir;
use super::loss::LossModel;
use crate::events::{Event, EventQueue};
use crate::rng::{exponential, stream, SimRng};
use crate::scenario::{RandomOutageCfg, Scenario};
use crate::time::{secs, to_secs, Time};

/// The Poisson process of one direction's random outages.
#[derive(Debug)]
pub struct OutageGen {
    cfg: RandomOutageCfg,
    rng: SimRng,
}

impl OutageGen {
    /// The outage beginning now: (its length, the time to the next one).
    pub fn draw(&mut self) -> (Time, Time) {
        let len = period(self.cfg.duration, self.cfg.exponential, &mut self.rng);
        let next = secs(exponential(&mut self.rng, self.cfg.mean_interval));
        (len, next)
    }
}

/// Length of one on or off period: `mean`, or drawn from an exponential of that mean.
pub fn period(mean: Time, exponential_len: bool, rng: &mut SimRng) -> Time {
    if exponential_len {
        secs(exponential(rng, to_secs(mean))).max(1)
    } else {
        mean
    }
}

/// Every link direction of `sc` (link `i`'s a -> b is direction `2i`, b -> a `2i + 1`),
/// each with its random-outage process if it has one.
pub fn link_dirs(sc: &Scenario) -> (Vec<LinkDir>, Vec<Option<OutageGen>>) {
    let label = |s: String| stream(sc.seed, sc.replication, &s);
    let mut dirs = Vec::with_capacity(sc.links.len() * 2);
    let mut gens = Vec::with_capacity(sc.links.len() * 2);
    for (li, l) in sc.links.iter().enumerate() {
        for (d, (from, to)) in [(l.a, l.b), (l.b, l.a)].into_iter().enumerate() {
            let imp = &l.dirs[d];
            let tag = format!("link:{}:{}->{}", l.name, sc.nodes[from], sc.nodes[to]);
            let loss = imp.loss.clone().map(|spec| LossModel::new(spec, label(format!("{tag}:loss"))));
            dirs.push(
                LinkDir::new(
                    (li * 2 + d) as u32,
                    from as u32,
                    to as u32,
                    l.rate_bps,
                    l.delay,
                    l.link_header_bytes,
                    &l.queue,
                    label(format!("{tag}:aqm")),
                    loss,
                    imp.applies_to,
                    imp.arq,
                )
                .with_capacity(imp.capacity.clone()),
            );
            gens.push(imp.random_outages.clone().map(|cfg| OutageGen { cfg, rng: label(format!("{tag}:outages")) }));
        }
    }
    (dirs, gens)
}

/// Schedule every direction's outages, delay spikes and first random outage.
pub fn schedule_link_events(sc: &Scenario, ev: &mut EventQueue, gens: &mut [Option<OutageGen>]) {
    for (li, l) in sc.links.iter().enumerate() {
        for d in 0..2 {
            let dir = (li * 2 + d) as u32;
            for &(start, len) in &l.dirs[d].outages {
                ev.schedule(start, Event::Outage { dir, begin: true });
                ev.schedule(start + len, Event::Outage { dir, begin: false });
            }
            for &(start, len, extra) in &l.dirs[d].delay_spikes {
                ev.schedule(start, Event::DelaySpike { dir, extra });
                ev.schedule(start + len, Event::DelaySpike { dir, extra: 0 });
            }
            if let Some(g) = gens[dir as usize].as_mut() {
                let first = g.cfg.from.saturating_add(secs(exponential(&mut g.rng, g.cfg.mean_interval)));
                ev.schedule(first, Event::RandomOutage { dir });
            }
        }
    }
}
