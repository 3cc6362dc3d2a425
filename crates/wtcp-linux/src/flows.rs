//! The flows' applications, one thread each, on kernel sockets: a bulk TCP sender and
//! its receiver, a paced UDP (CBR) sender and its receiver. Every loop wakes at least
//! every 10 ms to see the stop flag.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Mutex;

use wtcp_engine::time::{tx_time, Time};

use crate::clock::Clock;
use crate::sock;

/// Where a flow's sockets live for the whole run, so that the sampler can read their
/// `TCP_INFO` after the application is done (closed when the run ends).
#[derive(Default)]
pub struct Slots {
    pub sender: Mutex<Option<OwnedFd>>,
    pub receiver: Mutex<Option<OwnedFd>>,
    /// The receiver's descriptor once accepted (-1 before).
    pub receiver_fd: AtomicI32,
    pub sender_fd: AtomicI32,
    /// The kernel's congestion window (segments), MSS (bytes) and RTO (us) when the
    /// connection was made: what it took from the scenario.
    pub at_connect: Mutex<Option<(u32, u32, u32)>>,
    /// Why the connection failed, if it did.
    pub connect_error: Mutex<Option<String>>,
    /// Datagrams a UDP sender handed to its kernel.
    pub datagrams_sent: std::sync::atomic::AtomicU64,
    /// When the receiving application had read the last byte of a finite transfer (run time).
    pub completed_at: Mutex<Option<Time>>,
}

impl Slots {
    pub fn new() -> Slots {
        Slots { receiver_fd: AtomicI32::new(-1), sender_fd: AtomicI32::new(-1), ..Default::default() }
    }
}

/// What a UDP receiver saw inside the measurement window.
#[derive(Default, Debug)]
pub struct UdpStats {
    pub packets: u64,
    pub bytes: u64,
    pub window_packets: u64,
    pub window_bytes: u64,
    /// One-way delays inside the window, ns.
    pub delays: Vec<u64>,
}

const CHUNK: usize = 1 << 16;

/// Where and when a sender sends: its receiver's address, the run's clock, its start
/// and its stop (run time).
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub to: [u8; 4],
    pub clock: Clock,
    pub start: Time,
    pub stop_at: Time,
}

/// Bulk TCP sender: connect at `start`, write until `bytes` are written, `stop_at`, or stop.
pub fn tcp_send(fd: OwnedFd, at: Schedule, bytes: Option<u64>, slots: &Slots, stop: &AtomicBool) -> std::io::Result<()> {
    let Schedule { to, clock, start, stop_at } = at;
    clock.sleep_until(start);
    let raw = fd.as_raw_fd();
    // Non-blocking, so that a handshake still going at the end (the kernel retries a SYN
    // for minutes) neither holds the run nor fails it: the flow just delivered nothing.
    sock::set_nonblocking(raw)?;
    sock::start_connect(&fd, to)?;
    loop {
        if stop.load(Ordering::Relaxed) || clock.now() >= stop_at {
            *slots.sender.lock().expect("slot") = Some(fd);
            return Ok(());
        }
        if sock::wait(raw, libc::POLLOUT, 10) {
            break;
        }
    }
    if let Err(e) = sock::take_error(raw) {
        // Refused or timed out: recorded as a flow that delivered nothing.
        *slots.sender.lock().expect("slot") = Some(fd);
        *slots.connect_error.lock().expect("slot") = Some(e.to_string());
        return Ok(());
    }
    if let Ok((info, _)) = crate::info::TcpInfo::of(raw) {
        *slots.at_connect.lock().expect("slot") = Some((info.snd_cwnd, info.snd_mss, info.rto));
    }
    slots.sender_fd.store(raw, Ordering::Release);
    *slots.sender.lock().expect("slot") = Some(fd);
    let buf = vec![0x5au8; CHUNK];
    let mut left = bytes.unwrap_or(u64::MAX);
    while left > 0 && !stop.load(Ordering::Relaxed) && clock.now() < stop_at {
        if !sock::wait(raw, libc::POLLOUT, 10) {
            continue;
        }
        let n = CHUNK.min(left.min(CHUNK as u64) as usize);
        // SAFETY: buf holds at least n bytes.
        let w = unsafe { libc::send(raw, buf.as_ptr().cast(), n, libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL) };
        if w > 0 {
            left -= w as u64;
        } else if w < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::WouldBlock {
                return Err(e);
            }
        }
    }
    Ok(())
}

/// TCP receiver: accept, then read and discard until the end of the data or stop; the
/// time the last byte of a finite transfer (`bytes`) was read is the flow's completion.
pub fn tcp_receive(listener: OwnedFd, bytes: Option<u64>, clock: Clock, slots: &Slots, stop: &AtomicBool) -> std::io::Result<()> {
    while !sock::wait(listener.as_raw_fd(), libc::POLLIN, 10) {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
    }
    let conn = sock::accept(&listener)?;
    let raw = conn.as_raw_fd();
    slots.receiver_fd.store(raw, Ordering::Release);
    *slots.receiver.lock().expect("slot") = Some(conn);
    let mut buf = vec![0u8; CHUNK];
    let mut read = 0u64;
    while !stop.load(Ordering::Relaxed) {
        if !sock::wait(raw, libc::POLLIN, 10) {
            continue;
        }
        // SAFETY: buf is a valid writable buffer of its length.
        let r = unsafe { libc::recv(raw, buf.as_mut_ptr().cast(), buf.len(), libc::MSG_DONTWAIT) };
        if r == 0 {
            break;
        }
        if r > 0 {
            read += r as u64;
            if bytes == Some(read) {
                *slots.completed_at.lock().expect("slot") = Some(clock.now());
            }
        }
    }
    Ok(())
}

/// Paced UDP sender: datagrams of `payload` bytes (a sequence number and the send time
/// first) every `tx_time(payload, rate)` (the scenario's rate is the payload rate, as
/// the simulator's CBR source), on an absolute schedule, so a late wake-up
/// is caught up and the mean rate is the configured one.
pub fn udp_send(fd: OwnedFd, at: Schedule, rate_bps: f64, payload: u32, stop: &AtomicBool, sent: &std::sync::atomic::AtomicU64) -> std::io::Result<()> {
    let Schedule { to, clock, start, stop_at } = at;
    // SAFETY: prctl on this thread only (1 ns timer slack for the pacing sleeps).
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    let interval = tx_time(payload, rate_bps).max(1);
    let sa = sock::sockaddr(to, sock::PORT);
    let mut buf = vec![0u8; payload.max(16) as usize];
    let mut k: u64 = 0;
    loop {
        let t = start + k * interval;
        if t >= stop_at || stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        clock.sleep_until(t);
        buf[..8].copy_from_slice(&k.to_le_bytes());
        buf[8..16].copy_from_slice(&crate::clock::realtime_ns().to_le_bytes());
        // SAFETY: buf and sa are valid for their lengths.
        let n = unsafe { libc::sendto(fd.as_raw_fd(), buf.as_ptr().cast(), payload as usize, 0, (&sa as *const libc::sockaddr_in).cast(), std::mem::size_of::<libc::sockaddr_in>() as u32) };
        if n > 0 {
            sent.fetch_add(1, Ordering::Relaxed);
        }
        k += 1;
    }
}

/// UDP receiver: count datagrams inside [from, to) and, with `delays`, their one-way
/// delays: from the sender's CLOCK_REALTIME stamp to the kernel's, taken when the
/// datagram reached the socket (`SO_TIMESTAMPNS`), so the receiving thread's wake-up is
/// not in it.
pub fn udp_receive(fd: RawFd, clock: Clock, from: Time, to: Time, delays: bool, stop: &AtomicBool) -> UdpStats {
    let mut st = UdpStats::default();
    let mut buf = vec![0u8; 65536];
    sock::timestamp_arrivals(fd);
    while !stop.load(Ordering::Relaxed) {
        if !sock::wait(fd, libc::POLLIN, 10) {
            continue;
        }
        while let Some((r, arrived)) = sock::recv_stamped(fd, &mut buf) {
            if r < 16 {
                continue;
            }
            let now = clock.now();
            let sent = u64::from_le_bytes(buf[8..16].try_into().expect("8 bytes"));
            st.packets += 1;
            st.bytes += r as u64;
            if (from..to).contains(&now) {
                st.window_packets += 1;
                st.window_bytes += r as u64;
                if let (true, Some(at)) = (delays, arrived) {
                    st.delays.push(at.saturating_sub(sent));
                }
            }
        }
    }
    st
}
