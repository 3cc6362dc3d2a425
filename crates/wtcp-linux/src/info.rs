//! The kernel's own counters: `TCP_INFO` per socket and the per-namespace MIB
//! (`/proc/net/netstat`, `/proc/net/snmp`, what `nstat` reads).

use std::collections::HashMap;
use std::io;
use std::os::fd::RawFd;

/// `struct tcp_info` of include/uapi/linux/tcp.h up to `tcpi_total_rto_time` (Linux 6.7+).
/// The kernel copies min(our length, its length): the length it returns says which
/// fields it filled.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpInfo {
    pub state: u8,
    pub ca_state: u8,
    pub retransmits: u8,
    pub probes: u8,
    pub backoff: u8,
    pub options: u8,
    pub wscale: u8,
    pub rate_flags: u8,
    pub rto: u32,
    pub ato: u32,
    pub snd_mss: u32,
    pub rcv_mss: u32,
    pub unacked: u32,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    pub fackets: u32,
    pub last_data_sent: u32,
    pub last_ack_sent: u32,
    pub last_data_recv: u32,
    pub last_ack_recv: u32,
    pub pmtu: u32,
    pub rcv_ssthresh: u32,
    /// Smoothed RTT, us.
    pub rtt: u32,
    pub rttvar: u32,
    /// Segments.
    pub snd_ssthresh: u32,
    /// Segments.
    pub snd_cwnd: u32,
    pub advmss: u32,
    pub reordering: u32,
    pub rcv_rtt: u32,
    pub rcv_space: u32,
    pub total_retrans: u32,
    pub pacing_rate: u64,
    pub max_pacing_rate: u64,
    pub bytes_acked: u64,
    /// In-order payload bytes received (RFC 4898 HCThruOctetsReceived).
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,
    pub notsent_bytes: u32,
    pub min_rtt: u32,
    pub data_segs_in: u32,
    pub data_segs_out: u32,
    /// Bytes/s.
    pub delivery_rate: u64,
    pub busy_time: u64,
    pub rwnd_limited: u64,
    pub sndbuf_limited: u64,
    pub delivered: u32,
    pub delivered_ce: u32,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    pub dsack_dups: u32,
    pub reord_seen: u32,
    pub rcv_ooopack: u32,
    pub snd_wnd: u32,
    pub rcv_wnd: u32,
    pub rehash: u32,
    /// Retransmission timeouts (Linux 6.7+).
    pub total_rto: u16,
    pub total_rto_recoveries: u16,
    pub total_rto_time: u32,
}

/// Bytes of `TcpInfo` up to and including `total_rto`.
const WITH_TOTAL_RTO: usize = std::mem::offset_of!(TcpInfo, total_rto) + 2;

impl TcpInfo {
    /// `getsockopt(TCP_INFO)`, and whether the kernel filled `total_rto`.
    pub fn of(fd: RawFd) -> io::Result<(TcpInfo, bool)> {
        let mut info = TcpInfo::default();
        let mut len = std::mem::size_of::<TcpInfo>() as libc::socklen_t;
        // SAFETY: the kernel writes at most `len` bytes into `info`.
        let r = unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_INFO, (&mut info as *mut TcpInfo).cast(), &mut len) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((info, len as usize >= WITH_TOTAL_RTO))
    }
}

/// The calling thread's namespace's MIB counters as "TcpExt.TCPTimeouts" -> value.
pub fn mib() -> io::Result<HashMap<String, u64>> {
    let mut out = HashMap::new();
    for file in ["netstat", "snmp"] {
        parse_mib(&crate::netns::read_net_file(file)?, &mut out);
    }
    Ok(out)
}

/// `/proc/net/netstat` and `/proc/net/snmp` come as pairs of lines: "Group: names" then
/// "Group: values".
pub fn parse_mib(text: &str, out: &mut HashMap<String, u64>) {
    let lines: Vec<&str> = text.lines().collect();
    for pair in lines.chunks(2) {
        let [names, values] = pair else { continue };
        let (Some((group, names)), Some((_, values))) = (names.split_once(':'), values.split_once(':')) else { continue };
        for (n, v) in names.split_whitespace().zip(values.split_whitespace()) {
            if let Ok(v) = v.parse::<u64>() {
                out.insert(format!("{group}.{n}"), v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_info_layout_matches_the_kernel_header() {
        // include/uapi/linux/tcp.h: tcpi_rto at 8, tcpi_total_retrans at 100,
        // tcpi_pacing_rate at 104, tcpi_bytes_received at 128, tcpi_delivery_rate at 160,
        // tcpi_bytes_sent at 200, tcpi_snd_wnd at 228, tcpi_total_rto at 240.
        assert_eq!(std::mem::offset_of!(TcpInfo, rto), 8);
        assert_eq!(std::mem::offset_of!(TcpInfo, total_retrans), 100);
        assert_eq!(std::mem::offset_of!(TcpInfo, pacing_rate), 104);
        assert_eq!(std::mem::offset_of!(TcpInfo, bytes_received), 128);
        assert_eq!(std::mem::offset_of!(TcpInfo, delivery_rate), 160);
        assert_eq!(std::mem::offset_of!(TcpInfo, bytes_sent), 200);
        assert_eq!(std::mem::offset_of!(TcpInfo, snd_wnd), 228);
        assert_eq!(std::mem::offset_of!(TcpInfo, total_rto), 240);
    }

    #[test]
    fn mib_pairs_of_lines_parse_by_group() {
        let mut m = HashMap::new();
        parse_mib("TcpExt: TCPTimeouts TCPSackRecovery\nTcpExt: 3 7\nIpExt: InOctets\nIpExt: 99\n", &mut m);
        assert_eq!(m["TcpExt.TCPTimeouts"], 3);
        assert_eq!(m["TcpExt.TCPSackRecovery"], 7);
        assert_eq!(m["IpExt.InOctets"], 99);
    }
}
