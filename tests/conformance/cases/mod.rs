//! The case table. "Shared" cases must pass on every conforming plugin (and are checked against
//! XLA's own CPU plugin, so the suite's expectations are real XLA behaviour); "apu-only" cases
//! hold apu's own choices.
pub mod api;
pub mod buffers;
pub mod client;
pub mod events;
pub mod host_access;
pub mod outputs;
pub mod programs;

use super::runner::{Case, Scope::*};

pub const CASES: &[Case] = &[
    Case { name: "api_version_and_table", scope: Shared, run: api::api_version_and_table },
    Case { name: "plugin_attributes", scope: Shared, run: api::plugin_attributes },
    Case { name: "error_objects", scope: Shared, run: api::error_objects },
    Case { name: "error_function_table", scope: Shared, run: api::error_function_table },
    Case { name: "client_create_destroy", scope: Shared, run: client::client_create_destroy },
    Case { name: "platform_name_and_version", scope: Shared, run: client::platform_name_and_version },
    Case { name: "devices_and_memories", scope: Shared, run: client::devices_and_memories },
    Case { name: "lookup_unknown_device", scope: Shared, run: client::lookup_unknown_device },
    Case { name: "default_device_assignment", scope: Shared, run: client::default_device_assignment },
    Case { name: "round_trip_every_type", scope: Shared, run: buffers::round_trip_every_type },
    Case { name: "round_trip_narrow_types", scope: Shared, run: buffers::round_trip_narrow_types },
    Case { name: "round_trip_with_byte_strides", scope: Shared, run: buffers::round_trip_with_byte_strides },
    Case { name: "round_trip_scalar_and_empty", scope: Shared, run: buffers::round_trip_scalar_and_empty },
    Case { name: "to_host_size_query", scope: Shared, run: buffers::to_host_size_query },
    Case { name: "to_host_with_layout", scope: Shared, run: buffers::to_host_with_layout },
    Case { name: "buffer_metadata", scope: Shared, run: buffers::buffer_metadata },
    Case { name: "delete_and_use_after_delete", scope: Shared, run: buffers::delete_and_use_after_delete },
    Case { name: "is_on_cpu_direct_access", scope: Shared, run: host_access::is_on_cpu_direct_access },
    Case { name: "on_device_size", scope: Shared, run: host_access::on_device_size },
    Case { name: "ready_event_api", scope: Shared, run: events::ready_event_api },
    Case { name: "on_ready_from_another_thread", scope: Shared, run: events::on_ready_from_another_thread },
    Case { name: "event_create_and_set", scope: Shared, run: events::event_create_and_set },
    Case { name: "compile_invalid_program", scope: Shared, run: programs::compile_invalid_program },
    Case { name: "compile_unknown_format", scope: Shared, run: programs::compile_unknown_format },
    Case { name: "compile_invalid_options", scope: Shared, run: programs::compile_invalid_options },
    Case { name: "add_vhlo_1_13_7", scope: Shared, run: programs::add_vhlo_1_13_7 },
    Case { name: "add_vhlo_1_0_0", scope: Shared, run: programs::add_vhlo_1_0_0 },
    Case { name: "add_vhlo_1_17_0", scope: Shared, run: programs::add_vhlo_1_17_0 },
    Case { name: "add_stablehlo_text", scope: Shared, run: programs::add_stablehlo_text },
    Case { name: "add_hlo_proto", scope: Shared, run: programs::add_hlo_proto },
    Case { name: "compile_on_another_thread_with_extension", scope: Shared, run: programs::compile_on_another_thread_with_extension },
    Case { name: "executable_metadata", scope: Shared, run: programs::executable_metadata },
    Case { name: "executable_output_metadata", scope: Shared, run: outputs::executable_output_metadata },
    Case { name: "multiple_outputs_while_loop", scope: Shared, run: outputs::multiple_outputs_while_loop },
    Case { name: "concurrent_executions", scope: Shared, run: outputs::concurrent_executions },
    Case { name: "copy_to_memory", scope: Shared, run: outputs::copy_to_memory },
    Case { name: "memory_kinds_round_trip", scope: Shared, run: outputs::memory_kinds_round_trip },
    Case { name: "output_in_host_memory", scope: Shared, run: outputs::output_in_host_memory },
    Case { name: "token_output", scope: Shared, run: outputs::token_output },
    Case { name: "execute_wrong_arguments", scope: Shared, run: programs::execute_wrong_arguments },
    Case { name: "execute_with_deleted_input", scope: Shared, run: programs::execute_with_deleted_input },
    Case { name: "newer_caller_struct_sizes", scope: Shared, run: programs::newer_caller_struct_sizes },
    Case { name: "donation", scope: Shared, run: programs::donation },
    Case { name: "donation_suppressed", scope: Shared, run: programs::donation_suppressed },
    Case { name: "apu_reports_0_112", scope: ApuOnly, run: api::apu_reports_0_112 },
    Case { name: "apu_platform_name", scope: ApuOnly, run: client::apu_platform_name },
    Case { name: "execute_wrong_element_type", scope: ApuOnly, run: programs::execute_wrong_element_type },
];
