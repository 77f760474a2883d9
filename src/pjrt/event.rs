//! `PJRT_Event`: a handle on a runtime [`Event`]. Events are owned by whoever received them and
//! freed with `PJRT_Event_Destroy`; the underlying signal is shared, so destroying a handle never
//! affects the work it tracks.

use super::api_error::{code_from_raw, ApiError};
use super::guard::{args_min_size, entry, handle, string_arg};
use apu_pjrt_api::*;
use apu_runtime::Event;
use std::os::raw::c_void;

pub(crate) struct EventHandle {
    pub event: Event,
}

impl EventHandle {
    /// A new caller-owned `PJRT_Event*` for `event`.
    pub fn into_raw(event: Event) -> *mut PJRT_Event {
        Box::into_raw(Box::new(EventHandle { event })) as *mut PJRT_Event
    }
}

args_min_size! {
    PJRT_Event_Destroy_Args => event,
    PJRT_Event_IsReady_Args => is_ready,
    PJRT_Event_Error_Args => event,
    PJRT_Event_Await_Args => event,
    PJRT_Event_OnReady_Args => user_arg,
    PJRT_Event_Create_Args => event,
    PJRT_Event_Set_Args => error_message_size,
}

fn outcome_to_error(outcome: &apu_runtime::Outcome) -> *mut PJRT_Error {
    match outcome {
        Ok(()) => std::ptr::null_mut(),
        Err(e) => ApiError::from(e.clone()).into_raw(),
    }
}

pub(crate) unsafe extern "C" fn event_destroy(
    args: *mut PJRT_Event_Destroy_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Event_Destroy", args, |a| {
        if !a.event.is_null() {
            drop(unsafe { Box::from_raw(a.event as *mut EventHandle) });
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn event_is_ready(
    args: *mut PJRT_Event_IsReady_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Event_IsReady", args, |a| {
        let h: &EventHandle = unsafe { handle(a.event, "event")? };
        a.is_ready = h.event.is_ready();
        Ok(())
    })
}

/// Returns the event's error. Meant for completed events; on a pending one it waits rather than
/// answer something it cannot know yet.
pub(crate) unsafe extern "C" fn event_error(args: *mut PJRT_Event_Error_Args) -> *mut PJRT_Error {
    let mut failure = None;
    let err = entry("PJRT_Event_Error", args, |a| {
        let h: &EventHandle = unsafe { handle(a.event, "event")? };
        failure = h.event.wait().err();
        Ok(())
    });
    if !err.is_null() {
        return err;
    }
    failure.map_or(std::ptr::null_mut(), |e| ApiError::from(e).into_raw())
}

pub(crate) unsafe extern "C" fn event_await(args: *mut PJRT_Event_Await_Args) -> *mut PJRT_Error {
    entry("PJRT_Event_Await", args, |a| {
        let h: &EventHandle = unsafe { handle(a.event, "event")? };
        h.event.wait().map_err(ApiError::from)
    })
}

/// The caller's callback and its argument, moved to whichever thread completes the event.
struct ForeignCallback {
    callback: unsafe extern "C" fn(*mut PJRT_Error, *mut c_void),
    user_arg: *mut c_void,
}
// SAFETY: the PJRT contract allows OnReady callbacks to run on any thread.
unsafe impl Send for ForeignCallback {}

impl ForeignCallback {
    fn call(self, outcome: &apu_runtime::Outcome) {
        // The callback owns the error it receives (it frees it with PJRT_Error_Destroy).
        unsafe { (self.callback)(outcome_to_error(outcome), self.user_arg) }
    }
}

pub(crate) unsafe extern "C" fn event_on_ready(
    args: *mut PJRT_Event_OnReady_Args,
) -> *mut PJRT_Error {
    entry("PJRT_Event_OnReady", args, |a| {
        let h: &EventHandle = unsafe { handle(a.event, "event")? };
        let callback = a
            .callback
            .ok_or_else(|| ApiError::invalid_argument("`callback` is NULL"))?;
        let foreign = ForeignCallback {
            callback,
            user_arg: a.user_arg,
        };
        h.event.on_ready(move |outcome| foreign.call(outcome));
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn event_create(args: *mut PJRT_Event_Create_Args) -> *mut PJRT_Error {
    entry("PJRT_Event_Create", args, |a| {
        a.event = EventHandle::into_raw(Event::new());
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn event_set(args: *mut PJRT_Event_Set_Args) -> *mut PJRT_Error {
    entry("PJRT_Event_Set", args, |a| {
        let h: &EventHandle = unsafe { handle(a.event, "event")? };
        let outcome = if a.error_code == PJRT_Error_Code_OK {
            Ok(())
        } else {
            let message =
                unsafe { string_arg(a.error_message, a.error_message_size, "error_message")? };
            Err(apu_runtime::Error::new(code_from_raw(a.error_code), message))
        };
        h.event
            .set(outcome)
            .map_err(|_| ApiError::failed_precondition("PJRT_Event_Set: the event was already set"))
    })
}
