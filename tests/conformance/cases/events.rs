//! Events: readiness, errors, Await, OnReady from another thread.
use crate::conformance::handles::{Client, Event};
use crate::conformance::plugin::{Plugin, SendPtr};
use crate::conformance::runner::CaseResult;
use crate::{pjrt_args, pjrt_call};
use anyhow::{ensure, Context};
use apu_pjrt_api::*;
use std::ffi::c_void;
use std::sync::mpsc;
use std::time::Duration;

/// What the OnReady callback reports back: whether it got an error.
struct CallbackState {
    sender: mpsc::Sender<bool>,
    api: *const PJRT_Api,
}

unsafe extern "C" fn on_ready(error: *mut PJRT_Error, user_arg: *mut c_void) {
    let state = Box::from_raw(user_arg as *mut CallbackState);
    let had_error = !error.is_null();
    if had_error {
        // The callback owns the error and must destroy it.
        let mut args = pjrt_args!(PJRT_Error_Destroy_Args { error: error });
        if let Some(destroy) = (*state.api).PJRT_Error_Destroy {
            destroy(&mut args);
        }
    }
    let _ = state.sender.send(had_error);
}

/// Registers `on_ready` for `event` and returns the receiver of its report.
pub fn register_on_ready(plugin: &Plugin, event: *mut PJRT_Event) -> anyhow::Result<mpsc::Receiver<bool>> {
    let (sender, receiver) = mpsc::channel();
    let state = Box::into_raw(Box::new(CallbackState { sender, api: plugin.raw_api() }));
    let mut args = pjrt_args!(PJRT_Event_OnReady_Args {
        event: event,
        callback: Some(on_ready),
        user_arg: state as *mut c_void,
    });
    if let Err(e) = pjrt_call!(plugin, PJRT_Event_OnReady, &mut args) {
        drop(unsafe { Box::from_raw(state) });
        return Err(e.into());
    }
    Ok(receiver)
}

/// A completed ready event: IsReady, Error, Await, and OnReady (which must still fire).
pub fn ready_event_api(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let buffer = client.upload(&[1, 2, 3, 4], PJRT_Buffer_Type_U8, &[4])?;
    let event = buffer.ready_event()?.context("Buffer_ReadyEvent returned NULL")?;
    event.await_ready()?.context("Await")?;
    ensure!(event.is_ready()?, "IsReady false after Await");
    event.error().context("Event_Error of a successful event")?;
    let report = register_on_ready(plugin, event.raw)?;
    let had_error = report.recv_timeout(Duration::from_secs(20)).context("OnReady callback never ran")?;
    ensure!(!had_error, "OnReady got an error for a successful event");
    // A second, independent ready event for the same buffer.
    let again = buffer.ready_event()?.context("second ReadyEvent NULL")?;
    again.await_ready()?.context("second Await")?;
    Ok(())
}

/// OnReady registered from another thread, on an event of work that may still be running.
pub fn on_ready_from_another_thread(plugin: &Plugin) -> CaseResult {
    let client = Client::create(plugin)?;
    let data = vec![7u8; 1 << 20];
    let buffer = client.upload(&data, PJRT_Buffer_Type_U8, &[1 << 20])?;
    let event = buffer.ready_event()?.context("Buffer_ReadyEvent returned NULL")?;
    let raw = SendPtr(event.raw as *mut c_void);
    let report = std::thread::scope(|scope| {
        scope
            .spawn(move || {
                let raw = raw;
                register_on_ready(plugin, raw.0 as *mut PJRT_Event)
            })
            .join()
            .expect("registering thread panicked")
    })?;
    let had_error = report.recv_timeout(Duration::from_secs(20)).context("OnReady callback never ran")?;
    ensure!(!had_error, "OnReady reported an error");
    drop(event);
    Ok(())
}

/// Events created by the caller (PJRT_Event_Create) complete with PJRT_Event_Set.
pub fn event_create_and_set(plugin: &Plugin) -> CaseResult {
    let mut create = pjrt_args!(PJRT_Event_Create_Args {});
    pjrt_call!(plugin, PJRT_Event_Create, &mut create)?;
    let event = Event::wrap(plugin, create.event).context("Event_Create returned NULL")?;
    ensure!(!event.is_ready()?, "a new event is already ready");
    let report = register_on_ready(plugin, event.raw)?;
    let message = "set by the conformance suite";
    let mut set = pjrt_args!(PJRT_Event_Set_Args {
        event: event.raw,
        error_code: PJRT_Error_Code_ABORTED,
        error_message: message.as_ptr() as *const _,
        error_message_size: message.len(),
    });
    pjrt_call!(plugin, PJRT_Event_Set, &mut set)?;
    ensure!(report.recv_timeout(Duration::from_secs(20)).context("OnReady never ran")?, "callback saw no error");
    let error = event.error().err().context("Event_Error returned no error")?;
    ensure!(error.code == PJRT_Error_Code_ABORTED, "code {}", error.code);
    ensure!(error.message.contains(message), "message {:?}", error.message);
    Ok(())
}
