"""jax (top level): transformations and helpers, compared with JAX by their own tests."""
import jax as _jax

import frontend as _fe

JAX, OURS, REQUIRED = "jax", "frontend", None
CASES = {}
_A, _D, _P = "test_api.py::", "test_autodiff.py::", "test_programs_api.py::"
_T = "test_top_level.py::"
_MODULES = "test_surface.py::test_every_name_is_accounted_for_once"  # (their own tables)
ELSEWHERE = {
    "vmap": _A + "test_vmap_in_axes_forms", "jit": _A + "test_jit_static_argnums",
    "Array": _A + "test_eager_array_basics", "device_put": _A + "test_devices_and_device_put",
    "devices": _A + "test_devices_and_device_put", "local_devices": _A + "test_devices_and_device_put",
    "grad": _D + "test_grad_value_and_grad_pytrees_and_aux",
    "value_and_grad": _D + "test_grad_value_and_grad_pytrees_and_aux",
    **{n: _D + "test_jvp_vjp_linearize_on_pytrees" for n in ["jvp", "vjp", "linearize"]},
    **{n: _D + "test_jacobians_and_hessian" for n in ["jacfwd", "jacrev", "hessian"]},
    **{n: _D + "test_custom_jvp_and_vjp_in_every_order" for n in ["custom_jvp", "custom_vjp"]},
    **{n: _D + "test_checkpoint_recomputes_and_matches_jax" for n in ["checkpoint", "remat"]},
    **{n: _P + "test_api_additions"
       for n in ["ShapeDtypeStruct", "block_until_ready", "device_get", "eval_shape"]},
    **{n: "test_sharding.py::test_arrays_and_shardings_on_one_device"
       for n in ["make_mesh", "set_mesh", "shard_map", "sharding"]},
    "process_count": "test_distributed.py::test_two_processes_give_the_single_process_result",
    "process_index": "test_distributed.py::test_two_processes_give_the_single_process_result",
    "distributed": "test_distributed.py::test_two_processes_give_the_single_process_result",
    "export": "test_export.py::test_reading_a_jax_export_artifact",
    "ffi": "test_ffi.py::test_user_handler_registered_and_called",
    "custom_batching": "test_extend.py::test_custom_vmap_rule_used_under_vmap_only",
    "extend": "test_extend.py::test_user_primitive_everywhere",  # (in dir(jax) once imported)
    **{n: "test_surface_extra.py::test_top_level_names_added_for_jax_programs"
       for n in ["jacobian", "make_jaxpr", "device_count", "local_device_count",
                 "default_backend", "NamedSharding", "P"]},
    **{n: "test_callbacks.py::test_debug_print_matches_jax" for n in ["debug"]},
    # issue 26 (tests/test_top_level.py)
    "checkpoint_policies": _T + "test_checkpoint_policies_save_what_jax_saves",
    "numpy_rank_promotion": _T + "test_numpy_rank_promotion_raise_and_warn_as_jax",
    "numpy_dtype_promotion": _T + "test_numpy_dtype_promotion_strict_as_jax",
    **{n: _T + "test_disable_jit_no_tracing_log_compiles_and_monitoring"
       for n in ["disable_jit", "no_tracing", "log_compiles", "monitoring", "enable_x64",
                 "explain_cache_misses", "clear_caches"]},
    "errors": _T + "test_errors_are_jaxs_classes",
    **{n: _T + "test_dtypes_dlpack_typing_version_and_small_names"
       for n in ["dtypes", "dlpack", "typing", "version", "stages", "Device", "Shard", "float0",
                 "process_indices", "host_count", "host_id", "host_ids",
                 "print_environment_info", "copy_to_host_async", "custom_derivatives"]},
    **{n: _T + "test_debug_nans_infs_and_no_execution_as_jax"
       for n in ["debug_nans", "debug_infs", "no_execution"]},
    **{n: _T + "test_transfer_guards_as_jax"
       for n in ["transfer_guard", "transfer_guard_host_to_device",
                 "transfer_guard_device_to_host", "transfer_guard_device_to_device"]},
    **{n: _T + "test_default_matmul_precision_and_enable_checks"
       for n in ["default_matmul_precision", "enable_checks"]},
    **{n: _T + "test_make_array_from_pieces_and_fwd_and_bwd"
       for n in ["make_array_from_callback", "make_array_from_single_device_arrays",
                 "make_array_from_process_local_data", "fwd_and_bwd"]},
    **{n: _T + "test_typeof_compile_time_eval_linear_transpose_closures_custom_gradient"
       for n in ["typeof", "ensure_compile_time_eval", "linear_transpose", "closure_convert",
                 "custom_gradient"]},
    "pure_callback": "test_callbacks.py::test_pure_callback_values_pytrees_and_kwargs",
    "experimental": "test_callbacks.py::test_io_callback_ordered_and_its_errors",
    "effects_barrier": "test_callbacks.py::test_io_callback_ordered_and_its_errors",
    **{n: _MODULES for n in ["lax", "nn", "numpy", "random", "scipy", "tree", "tree_util", "ops",
                             "config", "core", "interpreters"]},
}
TODO = "not implemented yet (issue 26)"
ABSENT = {n: TODO for n in dir(_jax) if not n.startswith("_") and not hasattr(_fe, n)}
