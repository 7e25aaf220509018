//! The storage of congested-flow isolation's CAMs, with the field widths of Escudero-Sahuquillo,
//! Gran et al.'s EcoCC (Paper VI of Gran's thesis, supplement §8): a CAM line matches on the
//! root's output port (6 bits: up to 64 ports), its distance in hops (6 bits), the line it
//! refers to downstream (4 bits: up to 16 lines) and its destination list (entries of
//! ceil(log2 N) bits for N nodes), and keeps in plain SRAM the stop, sent-stop and propagated
//! bits and a 32-bit timer. A CAM cell is taken to cost about an SRAM cell's area.

use serde::Serialize;

/// CAM cells of a line besides its destination list: output port, hops, downstream line.
const FIXED_CAM_CELLS: u32 = 6 + 6 + 4;
/// SRAM cells of a line: stop, sent-stop and propagated bits, and the timer.
const SRAM_CELLS: u32 = 1 + 1 + 1 + 32;

/// The storage of the CAM of one port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CamCost {
    /// Lines per port.
    pub lines: u32,
    /// CAM cells per line (fixed fields and destination list).
    pub cam_cells_per_line: u32,
    /// SRAM cells per line.
    pub sram_cells_per_line: u32,
    /// Cells per port, CAM and SRAM.
    pub cells: u32,
    /// Bytes per port (cells over 8, rounded up).
    pub bytes: u32,
}

impl CamCost {
    /// The CAM of a port with `lines` lines whose destination lists hold `destinations`
    /// entries in a network of `nodes` nodes.
    pub fn new(nodes: u32, destinations: u32, lines: u32) -> CamCost {
        let entry_bits = nodes.max(2).next_power_of_two().trailing_zeros();
        let cam_cells_per_line = FIXED_CAM_CELLS + destinations * entry_bits;
        let cells = lines * (cam_cells_per_line + SRAM_CELLS);
        CamCost {
            lines,
            cam_cells_per_line,
            sram_cells_per_line: SRAM_CELLS,
            cells,
            bytes: cells.div_ceil(8),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paper VI's supplement: 64 / 144 / 336 CAM cells per line for destination lists of
    /// 8 / 16 / 32 entries on 64 / 256 / 1,024 nodes, 35 SRAM cells per line, and with 9 lines
    /// per port at 1,024 nodes 3,024 CAM and 315 SRAM cells, 3,339 cells, about 418 bytes.
    #[test]
    fn the_papers_cell_counts() {
        let per_line = |nodes, entries| CamCost::new(nodes, entries, 1).cam_cells_per_line;
        assert_eq!(per_line(64, 8), 64);
        assert_eq!(per_line(256, 16), 144);
        assert_eq!(per_line(1024, 32), 336);
        let port = CamCost::new(1024, 32, 9);
        assert_eq!(port.cam_cells_per_line * port.lines, 3024);
        assert_eq!(port.sram_cells_per_line * port.lines, 315);
        assert_eq!(port.cells, 3339);
        assert_eq!(port.bytes, 418);
        // A node count that is not a power of two rounds the entry width up.
        assert_eq!(per_line(648, 1), 16 + 10);
    }
}
