"""jax (top level): transformations and helpers, compared with JAX by their own tests."""

JAX, OURS, REQUIRED = "jax", "frontend", 0.84
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
    "ad_checkpoint": _T + "test_checkpoint_policies_save_what_jax_saves",  # (once imported)
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
    **{n: _T + "test_leaks_prng_options_default_device_user_context_live_arrays_reshard"
       for n in ["check_tracer_leaks", "checking_leaks", "legacy_prng_key", "default_prng_impl",
                 "threefry_partitionable", "default_device", "make_user_context", "live_arrays",
                 "reshard"]},
    "pmap": _T + "test_pmap_over_devices_as_jax",
    **{n: _T + "test_named_scope_and_named_call_reach_xla_metadata_as_jax"
       for n in ["named_scope", "named_call"]},
    "allow_f16_reductions": _T + "test_allow_f16_reductions_as_jax",
    "profiler": _T + "test_profiler_traces_and_memory_profile_as_jax",
    **{n: _T + "test_typeof_compile_time_eval_linear_transpose_closures_custom_gradient"
       for n in ["typeof", "ensure_compile_time_eval", "linear_transpose", "closure_convert",
                 "custom_gradient"]},
    "pure_callback": "test_callbacks.py::test_pure_callback_values_pytrees_and_kwargs",
    "experimental": "test_callbacks.py::test_io_callback_ordered_and_its_errors",
    "effects_barrier": "test_callbacks.py::test_io_callback_ordered_and_its_errors",
    **{n: _MODULES for n in ["lax", "nn", "numpy", "random", "scipy", "tree", "tree_util", "ops",
                             "config", "core", "interpreters"]},
}
_NO_REFS = ("vmaplab's graphs are pure dataflow: no mutable references or state effects, so "
            "JAX's Ref API (stateful arrays updated in place) has nothing to refer to; write "
            "functional updates (x.at[i].set(v)) instead")
ABSENT = {
    **{n: _NO_REFS for n in ["Ref", "ref", "new_ref", "empty_ref", "freeze", "free_ref"]},
    "ds": "builds the Slice index of a Ref (ref[ds(start, size)]); vmaplab has no Refs (see "
          "Ref): for arrays use lax.dynamic_slice",
    "ad": "JAX's markers (GradRef, GradValue, DontWant) for differentiating stateful Ref "
          "programs; vmaplab has no Refs (see Ref)",
    "memory": "memory.Space names the memory kinds (device, pinned host) of JAX's memory-typed "
              "arrays; vmaplab's arrays have no memory kinds (all in device memory)",
    "api_util": "JAX's internal helpers for writing transformations of its own jaxprs "
                "(flatten_fun, argnums_partial, shaped_abstractify); vmaplab's counterparts "
                "are frontend.core and frontend.tree_util",
    "lib": "exposes jaxlib's objects (xla_client, xla_bridge); vmaplab keeps jaxlib behind "
           "lowering/runtime and hands out none of its objects as API",
    "image": "not implemented: jax.image's resampling kernels (resize, scale_and_translate) "
             "are used by none of issue 26's programs; they are left for a later issue",
    "smap": "single-axis shard_map over JAX's explicit-sharding types (sharding in avals); "
            "vmaplab's avals carry no sharding, so its shard_map covers only the manual form",
    "auto_pcast": "inserts pvary to match varying-manual-axes (vma) types of JAX's "
                  "check_vma shard_map; vmaplab's check_vma=True does not type values by vma",
    "remove_size_one_mesh_axis_from_type": "edits the sharding and vma carried in JAX's "
                                           "ShapedArray; vmaplab's avals carry neither",
    "debug_key_reuse": "vmaplab does not track PRNG key uses (JAX's checker is an effect "
                       "analysis of its typed keys), so the option could not be honoured",
    "enable_custom_prng": "a transient, deprecated JAX flag making PRNGKey return typed keys; "
                          "vmaplab has typed keys from random.key and raw ones from PRNGKey, "
                          "as JAX's default",
    "softmax_custom_jvp": "a transient JAX flag choosing how nn.softmax's derivative is "
                          "written; vmaplab's softmax has one derivative rule (its values "
                          "equal JAX's under either setting)",
    "array_garbage_collection_guard": "logs or aborts when Python's cycle collector (not "
                                      "reference counting) frees a jax.Array; vmaplab does not "
                                      "hook the collector",
    "jax2tf_associative_scan_reductions": "affects only jax2tf (conversion to TensorFlow), "
                                          "which vmaplab has no counterpart of",
    "thread_guard": "guards multi-process computations launched from another thread; "
                    "frontend.distributed does not track the launching thread",
}
