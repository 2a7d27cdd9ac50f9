//! The demo settings panel in a window, redrawn every frame by the compute compositor, the
//! slider's knob following the mouse (press and drag anywhere; the wheel scrolls the list).
//!
//! `cargo run --release -p wavekit-examples --example panel`
//!
//! Each frame: the panel is encoded again into the same `Scene` (its font and image stay, so
//! glyphs are rasterized once), uploaded into the same `Frame`, composited into an
//! `Rgba8Unorm` storage texture inside the frame's encoder, and blitted to the window's surface
//! by a full-screen triangle (a surface is rarely a storage texture).

use std::sync::Arc;

use wavekit::{ContextOptions, GpuContext};
use wavekit_ui::demo::{Panel, SIZE};
use wavekit_ui::{Frame, RenderConfig, Scene, UiRenderer};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

const BLIT: &str = "
@group(0) @binding(0) var src: texture_2d<f32>;
struct V { @builtin(position) p: vec4<f32> }
@vertex fn vs(@builtin(vertex_index) i: u32) -> V {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return V(vec4<f32>(uv * vec2<f32>(2.0, -2.0) + vec2<f32>(-1.0, 1.0), 0.0, 1.0));
}
@fragment fn fs(v: V) -> @location(0) vec4<f32> {
    let c = textureLoad(src, vec2<i32>(v.p.xy), 0);
    // The compositor's output is sRGB-encoded: an sRGB surface would encode it again.
    if (DECODE) {
        return vec4<f32>(pow(c.rgb, vec3<f32>(2.2)), c.a);
    }
    return c;
}
";

struct State {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    ctx: GpuContext,
    ui: UiRenderer,
    frame: Frame,
    scene: Scene,
    panel: Panel,
    target: wgpu::Texture,
    blit: wgpu::RenderPipeline,
    bind: wgpu::BindGroup,
    knob: f32,
    scroll: f32,
    pressed: bool,
}

#[derive(Default)]
struct App {
    state: Option<State>,
    error: Option<String>,
}

impl State {
    fn new(event_loop: &ActiveEventLoop) -> Result<State, String> {
        let window = Arc::new(
            event_loop
                .create_window(
                    Window::default_attributes()
                        .with_title("wavekit-ui: the demo panel")
                        .with_inner_size(PhysicalSize::new(SIZE.0, SIZE.1))
                        .with_resizable(false),
                )
                .map_err(|e| e.to_string())?,
        );
        let handle = event_loop.owned_display_handle();
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle(
            Box::new(handle),
        ));
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| e.to_string())?;
        let ctx = GpuContext::on_instance(&instance, &ContextOptions::default(), Some(&surface))
            .map_err(|e| e.to_string())?;
        let caps = surface.get_capabilities(&ctx.adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| !f.is_srgb())
            .or_else(|| caps.formats.first().copied())
            .ok_or("the surface has no format")?;
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            width: SIZE.0,
            height: SIZE.1,
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes[0],
            view_formats: vec![],
            color_space: wgpu::SurfaceColorSpace::Auto,
        };
        surface.configure(&ctx.device, &config);
        let ui = UiRenderer::new(&ctx, RenderConfig::default()).map_err(|e| e.to_string())?;
        let mut scene = Scene::new(SIZE.0, SIZE.1).map_err(|e| e.to_string())?;
        let panel = Panel::new(&mut scene).map_err(|e| e.to_string())?;
        let mut frame = ui.frame(&ctx).map_err(|e| e.to_string())?;
        panel
            .draw(&mut scene, 0.5, 1.5)
            .map_err(|e| e.to_string())?;
        ui.upload(&ctx, &mut frame, &scene)
            .map_err(|e| e.to_string())?;
        let target = wavekit_ui::gpu::storage_target(
            &ctx,
            "panel target",
            SIZE,
            wgpu::TextureUsages::TEXTURE_BINDING,
        );
        ui.target_texture(&ctx, &mut frame, &target)
            .map_err(|e| e.to_string())?;
        let source = BLIT.replace("DECODE", if format.is_srgb() { "true" } else { "false" });
        let module = ctx
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("blit"),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
        let blit = ctx
            .device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("blit"),
                layout: None,
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs"),
                    compilation_options: Default::default(),
                    targets: &[Some(format.into())],
                }),
                primitive: Default::default(),
                depth_stencil: None,
                multisample: Default::default(),
                multiview_mask: None,
                cache: None,
            });
        let view = target.create_view(&Default::default());
        let bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("blit"),
            layout: &blit.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            }],
        });
        Ok(State {
            window,
            surface,
            config,
            ctx,
            ui,
            frame,
            scene,
            panel,
            target,
            blit,
            bind,
            knob: 0.5,
            scroll: 1.5,
            pressed: false,
        })
    }

    fn redraw(&mut self) -> Result<(), String> {
        self.panel
            .draw(&mut self.scene, self.knob, self.scroll)
            .map_err(|e| e.to_string())?;
        self.ui
            .upload(&self.ctx, &mut self.frame, &self.scene)
            .map_err(|e| e.to_string())?;
        let out = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            _ => {
                self.surface.configure(&self.ctx.device, &self.config);
                return Ok(());
            }
        };
        let view = out.texture.create_view(&Default::default());
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        self.ui
            .record(&self.frame, &mut enc)
            .map_err(|e| e.to_string())?;
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("blit"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.blit);
            pass.set_bind_group(0, &self.bind, &[]);
            pass.draw(0..3, 0..1);
        }
        self.ctx.queue.submit([enc.finish()]);
        self.window.pre_present_notify();
        self.ctx.queue.present(out);
        let _ = &self.target;
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_none() {
            match State::new(event_loop) {
                Ok(s) => self.state = Some(s),
                Err(e) => {
                    self.error = Some(e);
                    event_loop.exit();
                }
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(s) = &mut self.state else { return };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::MouseInput { state, .. } => s.pressed = state == ElementState::Pressed,
            // The knob follows the mouse along the slider's track (40 to 276 px): over the
            // slider's rows, or anywhere while a button is held.
            WindowEvent::CursorMoved { position, .. } if s.pressed || position.y < 140.0 => {
                s.knob = ((position.x as f32 - 40.0) / 236.0).clamp(0.0, 1.0);
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let d = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 30.0,
                };
                s.scroll = (s.scroll - d).clamp(0.0, 6.5);
            }
            WindowEvent::RedrawRequested => {
                if let Err(e) = s.redraw() {
                    self.error = Some(e);
                    event_loop.exit();
                    return;
                }
                s.window.request_redraw();
            }
            _ => {}
        }
    }
}

fn main() {
    let event_loop = match EventLoop::new() {
        Ok(e) => e,
        Err(e) => {
            eprintln!(
                "panel: no window system here ({e}); `wavekit ui demo -o panel.png` draws the panel to a file"
            );
            std::process::exit(2);
        }
    };
    let mut app = App::default();
    if let Err(e) = event_loop.run_app(&mut app) {
        eprintln!("panel: {e}");
        std::process::exit(2);
    }
    if let Some(e) = app.error {
        eprintln!("panel: {e}");
        std::process::exit(2);
    }
}
