//! The reference configurations that speed is measured on (`tailback bench`, `cargo bench`).

use crate::spec::Spec;

/// A named benchmark configuration.
#[derive(Debug, Clone)]
pub struct Reference {
    /// Short name.
    pub name: &'static str,
    /// What the configuration models.
    pub description: &'static str,
    /// The configuration (measurement window set for benchmarking).
    pub config: Spec,
}

/// The configurations speed is tracked on: a 16x16 torus near saturation and an 8x8 mesh with
/// single-flit packets.
pub fn references() -> Vec<Reference> {
    let torus = "
        [topology]
        kind = \"torus\"
        k = 16
        n = 2
        [router]
        vcs = 4
        vc_buffer_flits = 8
        [traffic]
        pattern = \"uniform\"
        rate = 0.24
        packet_flits = 16
        [sim]
        warmup_cycles = 5000
        measure_cycles = 20000
    ";
    let mesh = "
        [topology]
        kind = \"mesh\"
        k = 8
        n = 2
        [router]
        vcs = 8
        vc_buffer_flits = 8
        [traffic]
        pattern = \"uniform\"
        rate = 0.40
        packet_flits = 1
        [sim]
        warmup_cycles = 5000
        measure_cycles = 40000
    ";
    [
        (
            "torus16",
            "16x16 torus, DOR with dateline classes, 4 VCs x 8 flits, 16-flit packets, uniform at 0.24 flits/node/cycle (near saturation)",
            torus,
        ),
        (
            "mesh8",
            "8x8 mesh, DOR, 8 VCs x 8 flits, 1-flit packets, uniform at 0.40 flits/node/cycle",
            mesh,
        ),
    ]
    .into_iter()
    .map(|(name, description, text)| Reference {
        name,
        description,
        config: Spec::from_toml_str(text, name).expect("reference configurations are valid"),
    })
    .collect()
}
