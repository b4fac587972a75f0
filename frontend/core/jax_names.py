"""The public names of the JAX 0.10.2 modules vmaplab mirrors (generated from JAX;
tests/test_programs_api.py checks them against the installed JAX). A name missing here
gives an AttributeError that says whether JAX has it (``missing``)."""

JAX_NAMES = {
    "frontend": ("jax", """
        Array Device NamedSharding P Ref ShapeDtypeStruct Shard ad allow_f16_reductions
        api_util array_garbage_collection_guard auto_pcast block_until_ready
        check_tracer_leaks checking_leaks checkpoint checkpoint_policies clear_caches
        closure_convert config copy_to_host_async core custom_batching
        custom_derivatives custom_gradient custom_jvp custom_vjp debug debug_infs
        debug_key_reuse debug_nans default_backend default_device
        default_matmul_precision default_prng_impl device_count device_get device_put
        devices disable_jit distributed dlpack ds dtypes effects_barrier empty_ref
        enable_checks enable_custom_prng enable_x64 ensure_compile_time_eval errors
        eval_shape experimental explain_cache_misses export ffi float0 free_ref freeze
        fwd_and_bwd grad hessian host_count host_id host_ids image interpreters jacfwd
        jacobian jacrev jax2tf_associative_scan_reductions jit jvp lax legacy_prng_key
        lib linear_transpose linearize live_arrays local_device_count local_devices
        log_compiles make_array_from_callback make_array_from_process_local_data
        make_array_from_single_device_arrays make_jaxpr make_mesh make_user_context
        memory monitoring named_call named_scope new_ref nn no_execution no_tracing
        numpy numpy_dtype_promotion numpy_rank_promotion ops pmap print_environment_info
        process_count process_index process_indices profiler pure_callback random ref
        remat remove_size_one_mesh_axis_from_type reshard scipy set_mesh shard_map
        sharding smap softmax_custom_jvp stages thread_guard threefry_partitionable
        transfer_guard transfer_guard_device_to_device transfer_guard_device_to_host
        transfer_guard_host_to_device tree tree_util typeof typing value_and_grad
        version vjp vmap
    """.split()),
    "frontend.numpy": ("jax.numpy", """
        ComplexWarning abs absolute acos acosh add all allclose amax amin angle any
        append apply_along_axis apply_over_axes arange arccos arccosh arcsin arcsinh
        arctan arctan2 arctanh argmax argmin argpartition argsort argwhere around array
        array_equal array_equiv array_repr array_split array_str asarray asin asinh
        astype atan atan2 atanh atleast_1d atleast_2d atleast_3d average bartlett
        bfloat16 bincount bitwise_and bitwise_count bitwise_invert bitwise_left_shift
        bitwise_not bitwise_or bitwise_right_shift bitwise_xor blackman block bool bool_
        broadcast_arrays broadcast_shapes broadcast_to c_ can_cast cbrt cdouble ceil
        character choose clip column_stack complex128 complex64 complex_ complexfloating
        compress concat concatenate conj conjugate convolve copy copysign corrcoef
        correlate cos cosh count_nonzero cov cross csingle cumprod cumsum
        cumulative_prod cumulative_sum deg2rad degrees delete diag diag_indices
        diag_indices_from diagflat diagonal diff digitize divide divmod dot double
        dsplit dstack dtype e ediff1d einsum einsum_path empty empty_like equal
        euler_gamma exp exp2 expand_dims expm1 extract eye fabs fft fill_diagonal finfo
        flatnonzero flexible flip fliplr flipud float16 float32 float4_e2m1fn float64
        float6_e2m3fn float6_e3m2fn float8_e3m4 float8_e4m3 float8_e4m3b11fnuz
        float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu float_
        float_power floating floor floor_divide fmax fmin fmod frexp from_dlpack
        frombuffer fromfile fromfunction fromiter frompyfunc fromstring full full_like
        gcd generic geomspace get_printoptions gradient greater greater_equal hamming
        hanning heaviside histogram histogram2d histogram_bin_edges histogramdd hsplit
        hstack hypot i0 identity iinfo imag index_exp indices inexact inf inner insert
        int1 int16 int2 int32 int4 int64 int8 int_ integer interp intersect1d invert
        isclose iscomplex iscomplexobj isdtype isfinite isin isinf isnan isneginf
        isposinf isreal isrealobj isscalar issubdtype iterable ix_ kaiser kron lcm ldexp
        left_shift less less_equal lexsort linalg linspace load log log10 log1p log2
        logaddexp logaddexp2 logical_and logical_not logical_or logical_xor logspace
        mask_indices matmul matrix_transpose matvec max maximum mean median meshgrid
        mgrid min minimum mod modf moveaxis multiply nan nan_to_num nanargmax nanargmin
        nancumprod nancumsum nanmax nanmean nanmedian nanmin nanpercentile nanprod
        nanquantile nanstd nansum nanvar ndarray ndim negative newaxis nextafter nonzero
        not_equal number object_ ogrid ones ones_like outer packbits pad partition
        percentile permute_dims pi piecewise place poly polyadd polyder polydiv polyfit
        polyint polymul polysub polyval positive pow power printoptions prod
        promote_types ptp put put_along_axis quantile r_ rad2deg radians ravel
        ravel_multi_index real reciprocal remainder repeat reshape resize result_type
        right_shift rint roll rollaxis roots rot90 round s_ save savez searchsorted
        select set_printoptions setdiff1d setxor1d shape sign signbit signedinteger sin
        sinc single sinh size sort sort_complex spacing split sqrt square squeeze stack
        std subtract sum swapaxes take take_along_axis tan tanh tensordot tile trace
        transpose trapezoid tri tril tril_indices tril_indices_from trim_zeros triu
        triu_indices triu_indices_from true_divide trunc ufunc uint uint1 uint16 uint2
        uint32 uint4 uint64 uint8 union1d unique unique_all unique_counts unique_inverse
        unique_values unpackbits unravel_index unsignedinteger unstack unwrap vander var
        vdot vecdot vecmat vectorize vsplit vstack where zeros zeros_like
    """.split()),
    "frontend.lax": ("jax.lax", """
        AccuracyMode ConvDimensionNumbers ConvGeneralDilatedDimensionNumbers
        DotAlgorithm DotAlgorithmPreset DotDimensionNumbers FftType
        GatherDimensionNumbers GatherScatterMode Precision PrecisionLike
        RaggedDotDimensionNumbers RandomAlgorithm RoundingMethod ScatterDimensionNumbers
        Tolerance abs abs_p acos acos_p acosh acosh_p add add_p after_all after_all_p
        all_gather all_gather_p all_to_all all_to_all_p and_p approx_max_k approx_min_k
        approx_top_k_p argmax argmax_p argmin argmin_p asin asin_p asinh asinh_p
        associative_scan atan atan2 atan2_p atan_p atanh atanh_p axis_index axis_index_p
        axis_size batch_matmul bessel_i0e bessel_i0e_p bessel_i1e bessel_i1e_p betainc
        bitcast_convert_type bitcast_convert_type_p bitwise_and bitwise_not bitwise_or
        bitwise_xor broadcast broadcast_in_dim broadcast_in_dim_p broadcast_like
        broadcast_shapes broadcast_to_rank broadcasted_iota cbrt cbrt_p ceil ceil_p
        clamp clamp_p clz clz_p collapse complex complex_p composite concatenate
        concatenate_p cond cond_p conj conj_p conv conv_dimension_numbers
        conv_general_dilated conv_general_dilated_local conv_general_dilated_p
        conv_general_dilated_patches conv_general_permutations conv_general_shape_tuple
        conv_shape_tuple conv_transpose conv_transpose_shape_tuple
        conv_with_general_padding convert_element_type convert_element_type_p copy_p cos
        cos_p cosh cosh_p create_token create_token_p cumlogsumexp cumlogsumexp_p cummax
        cummax_p cummin cummin_p cumprod cumprod_p cumsum cumsum_p custom_linear_solve
        custom_root dce_sink dce_sink_p device_put_p digamma digamma_p div div_p dot
        dot_general dot_general_p dtype dynamic_index_in_dim dynamic_slice
        dynamic_slice_in_dim dynamic_slice_p dynamic_update_index_in_dim
        dynamic_update_slice dynamic_update_slice_in_dim dynamic_update_slice_p empty eq
        eq_p eq_to_p erf erf_inv erf_inv_p erf_p erfc erfc_p exp exp2 exp2_p exp_p
        expand_dims expm1 expm1_p fft fft_p floor floor_p fori_loop full full_like
        gather gather_p ge ge_p gt gt_p igamma igamma_grad_a igamma_grad_a_p igamma_p
        igammac igammac_p imag imag_p index_in_dim index_take integer_pow integer_pow_p
        iota iota_p is_finite is_finite_p le le_p le_to_p lgamma lgamma_p linalg
        linear_solve_p log log1p log1p_p log_p logistic logistic_p lt lt_p lt_to_p map
        max max_p min min_p mul mul_p mulhi mulhi_p ne ne_p neg neg_p nextafter
        nextafter_p not_p optimization_barrier optimization_barrier_p or_p pad pad_p
        padtype_to_pads pbroadcast pcast platform_dependent pmax pmax_p pmean pmin
        pmin_p polygamma polygamma_p population_count population_count_p pow pow_p
        ppermute ppermute_p precv psend pshuffle psum psum_p psum_scatter pswapaxes
        ragged_all_to_all ragged_all_to_all_p ragged_dot ragged_dot_general
        random_gamma_grad real real_p reciprocal reduce reduce_and reduce_and_p
        reduce_max reduce_max_p reduce_min reduce_min_p reduce_or reduce_or_p reduce_p
        reduce_precision reduce_precision_p reduce_prod reduce_prod_p reduce_sum
        reduce_sum_p reduce_window reduce_window_max_p reduce_window_min_p
        reduce_window_p reduce_window_shape_tuple reduce_window_sum_p reduce_xor
        reduce_xor_p regularized_incomplete_beta_p rem rem_p reshape reshape_p rev rev_p
        rng_bit_generator rng_bit_generator_p rng_uniform rng_uniform_p round round_p
        rsqrt rsqrt_p scaled_dot scan scan_p scatter scatter_add scatter_add_p
        scatter_apply scatter_max scatter_max_p scatter_min scatter_min_p scatter_mul
        scatter_mul_p scatter_p scatter_sub scatter_sub_p select select_and_gather_add_p
        select_and_scatter_add_p select_and_scatter_p select_n select_n_p shape_as_value
        sharding_constraint_p shift_left shift_left_p shift_right_arithmetic
        shift_right_arithmetic_p shift_right_logical shift_right_logical_p sign sign_p
        sin sin_p sinh sinh_p slice slice_in_dim slice_p sort sort_key_val sort_p split
        split_p sqrt sqrt_p square square_p squeeze squeeze_p stack stack_p stage
        stage_p stop_gradient stop_gradient_p sub sub_p switch tan tan_p tanh tanh_p
        tile tile_p top_k top_k_p transpose transpose_p unstack unstack_p while_loop
        while_p with_sharding_constraint xor_p zeta zeta_p
    """.split()),
    "frontend.random": ("jax.random", """
        PRNGKey ball bernoulli beta binomial bits categorical cauchy chisquare choice
        clone dirichlet double_sided_maxwell exponential f fold_in gamma
        generalized_normal geometric gumbel key key_data key_dtype key_impl laplace
        loggamma logistic lognormal maxwell multinomial multivariate_normal normal
        orthogonal pareto permutation poisson rademacher randint random_gamma_p rayleigh
        split t triangular truncated_normal uniform wald weibull_min wrap_key_data
    """.split()),
    "frontend.nn": ("jax.nn", """
        celu dot_product_attention elu gelu get_scaled_dot_general_config glu
        hard_sigmoid hard_silu hard_swish hard_tanh identity initializers leaky_relu
        log1mexp log_sigmoid log_softmax logmeanexp logsumexp mish one_hot relu relu6
        scaled_dot_general scaled_matmul selu sigmoid silu soft_sign softmax softplus
        sparse_plus sparse_sigmoid squareplus standardize swish tanh
    """.split()),
    "frontend.nn.initializers": ("jax.nn.initializers", """
        Initializer constant delta_orthogonal glorot_normal glorot_uniform he_normal
        he_uniform kaiming_normal kaiming_uniform lecun_normal lecun_uniform normal ones
        orthogonal truncated_normal uniform variance_scaling xavier_normal
        xavier_uniform zeros
    """.split()),
    "frontend.tree_util": ("jax.tree_util", """
        DictKey FlattenedIndexKey GetAttrKey KeyEntry KeyPath Partial PyTreeDef
        SequenceKey all_leaves default_registry flatten_one_level
        flatten_one_level_with_keys is_tree_node keystr register_dataclass
        register_pytree_node register_pytree_node_class register_pytree_with_keys
        register_pytree_with_keys_class register_static tree_all tree_broadcast
        tree_flatten tree_flatten_with_path tree_leaves tree_leaves_with_path tree_map
        tree_map_with_path tree_reduce tree_reduce_associative tree_structure
        tree_transpose tree_unflatten treedef_children treedef_is_leaf treedef_tuple
    """.split()),
    "frontend.numpy.linalg": ("jax.numpy.linalg", """
        cholesky cond cross det diagonal eig eigh eigvals eigvalsh inv lstsq matmul
        matrix_norm matrix_power matrix_rank matrix_transpose multi_dot norm outer pinv qr
        slogdet solve svd svdvals tensordot tensorinv tensorsolve trace vecdot vector_norm
    """.split()),
    "frontend.numpy.fft": ("jax.numpy.fft", """
        fft fft2 fftfreq fftn fftshift hfft ifft ifft2 ifftn ifftshift ihfft irfft irfft2
        irfftn rfft rfft2 rfftfreq rfftn
    """.split()),
    "frontend.ops": ("jax.ops", """
        segment_max segment_min segment_prod segment_sum
    """.split()),
    "frontend.tree": ("jax.tree", """
        all broadcast flatten flatten_with_path leaves leaves_with_path map
        map_with_path reduce reduce_associative static structure transpose unflatten
    """.split()),
    "frontend.scipy.special": ("jax.scipy.special", """
        bernoulli bessel_jn beta betainc betaln boxcox boxcox1p comb dawsn digamma entr erf
        erfc erfcx erfinv exp1 expi expit expn factorial fresnel gamma gammainc gammaincc
        gammaln gammasgn hyp1f1 hyp2f1 i0 i0e i1 i1e kl_div log_ndtr log_softmax loggamma
        logit logsumexp multigammaln ndtr ndtri owens_t poch polygamma rel_entr sici softmax
        spence sph_harm_y wofz xlog1py xlogy zeta
    """.split()),
    "frontend.scipy.linalg": ("jax.scipy.linalg", """
        block_diag cho_factor cho_solve cholesky circulant companion convolution_matrix det
        dft eigh eigh_tridiagonal expm expm_frechet fiedler fiedler_companion funm hadamard
        hankel helmert hessenberg hilbert inv invhilbert invpascal leslie lu lu_factor
        lu_solve pascal polar qr qr_multiply rsf2csf schur solve solve_sylvester
        solve_triangular sqrtm svd toeplitz
    """.split()),
    "frontend.scipy.sparse": ("jax.scipy.sparse", ["linalg"]),
    "frontend.scipy.sparse.linalg": ("jax.scipy.sparse.linalg", ["bicgstab", "cg", "gmres"]),
    "frontend.scipy.optimize": ("jax.scipy.optimize", ["OptimizeResults", "minimize"]),
    "frontend.scipy.stats": ("jax.scipy.stats", """
        bernoulli beta betabinom binom cauchy chi2 dirichlet expon gamma gaussian_kde
        gennorm geom gumbel_l gumbel_r laplace logistic mode multinomial multivariate_normal
        nbinom norm pareto poisson rankdata sem t truncnorm uniform vonmises wrapcauchy
    """.split()),
    "frontend.scipy": ("jax.scipy", """
        cluster fft integrate interpolate linalg ndimage signal sparse special stats
    """.split()),
    "frontend.scipy.signal": ("jax.scipy.signal", """
        convolve convolve2d correlate correlate2d csd detrend fftconvolve istft stft welch
    """.split()),
    "frontend.scipy.fft": ("jax.scipy.fft", "dct dctn idct idctn".split()),
    "frontend.scipy.integrate": ("jax.scipy.integrate", ["trapezoid"]),
    "frontend.scipy.interpolate": ("jax.scipy.interpolate", ["RegularGridInterpolator"]),
    "frontend.scipy.ndimage": ("jax.scipy.ndimage", ["map_coordinates"]),
    "frontend.scipy.cluster": ("jax.scipy.cluster", ["vq"]),
    "frontend.scipy.cluster.vq": ("jax.scipy.cluster.vq", ["vq"]),
    "frontend.scipy.spatial": ("jax.scipy.spatial", []),  # (transform loads lazily)
    "frontend.scipy.spatial.transform": ("jax.scipy.spatial.transform", ["Rotation", "Slerp"]),
}

_SETS: dict = {}


def missing(module: str, name: str) -> AttributeError:
    """The AttributeError for ``module.name``, which vmaplab lacks: it names the JAX name it
    mirrors when JAX has one (a module's ``__getattr__`` raises it)."""
    jax_module, names = JAX_NAMES[module]
    s = _SETS.get(module)
    if s is None:
        s = _SETS[module] = frozenset(names)
    if name in s:
        return AttributeError(f"module {module!r} has no attribute {name!r}: {jax_module}.{name} "
                              f"exists in JAX, but vmaplab does not have it yet")
    return AttributeError(f"module {module!r} has no attribute {name!r} (nor does {jax_module})")
