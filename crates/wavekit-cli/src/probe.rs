//! `wavekit probe`.

use serde::Serialize;
use wavekit::{AdapterSummary, Capabilities, GpuContext};

use crate::error::CliError;

#[derive(Serialize)]
struct ProbeReport<'a> {
    adapter: &'a AdapterSummary,
    capabilities: &'a Capabilities,
}

/// Print the chosen adapter's description.
pub fn probe(ctx: &GpuContext, json: bool) -> Result<(), CliError> {
    if json {
        let report = ProbeReport {
            adapter: &ctx.summary,
            capabilities: &ctx.caps,
        };
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let a = &ctx.summary;
    let c = &ctx.caps;
    let l = &c.limits;
    println!("adapter      {}", a.label());
    println!("driver       {} ({})", a.driver, a.driver_info);
    println!("device type  {}", a.device_type);
    println!(
        "pci ids      vendor {:#06x}, device {:#06x}",
        a.vendor, a.device
    );
    if c.subgroups.supported {
        println!(
            "subgroups    yes, width {}..{}",
            c.subgroups.min_size, c.subgroups.max_size
        );
    } else {
        println!("subgroups    no (wavekit uses its workgroup-memory paths)");
    }
    println!("timestamps   {:?}", c.timestamps);
    println!("shader int64 {}", c.shader_int64);
    println!("shader f16   {}", c.shader_f16);
    println!("max_buffer_size                      {}", l.max_buffer_size);
    println!(
        "max_storage_buffer_binding_size      {}",
        l.max_storage_buffer_binding_size
    );
    println!(
        "max_compute_workgroup_storage_size   {}",
        l.max_compute_workgroup_storage_size
    );
    println!(
        "max_compute_invocations_per_workgroup {}",
        l.max_compute_invocations_per_workgroup
    );
    println!(
        "max_compute_workgroup_size           {}x{}x{}",
        l.max_compute_workgroup_size_x,
        l.max_compute_workgroup_size_y,
        l.max_compute_workgroup_size_z
    );
    println!(
        "max_compute_workgroups_per_dimension {}",
        l.max_compute_workgroups_per_dimension
    );
    println!(
        "max_storage_buffers_per_shader_stage {}",
        l.max_storage_buffers_per_shader_stage
    );
    Ok(())
}

/// Print every adapter.
pub fn list(json: bool) -> Result<(), CliError> {
    let backends = wavekit_harness::context_options(&wavekit_harness::Env)?.backends;
    let adapters = wavekit::list_adapters(backends);
    if json {
        println!("{}", serde_json::to_string_pretty(&adapters)?);
        return Ok(());
    }
    if adapters.is_empty() {
        return Err(wavekit::Error::NoAdapter {
            backends: "all enabled".into(),
        }
        .into());
    }
    for a in &adapters {
        println!("{}: {}", a.index, a.label());
    }
    Ok(())
}
