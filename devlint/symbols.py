"""Names of the libraries devlint knows about, kept as data.

Every name is fully qualified, as it is after import aliases are resolved
(``pl.LightningModule`` with ``import pytorch_lightning as pl`` becomes
``pytorch_lightning.LightningModule``).
"""

from __future__ import annotations

LIGHTNING_MODULE_BASES = frozenset(
    {
        f"{package}.{path}LightningModule"
        for package in ("lightning.pytorch", "pytorch_lightning")
        for path in ("", "core.", "core.module.")
    }
    | {"lightning.LightningModule"}
)
"""Bases that make a class a LightningModule: model code that has ``.device``."""

PRETRAINED_MODEL_BASES = frozenset(
    {"transformers.PreTrainedModel", "transformers.modeling_utils.PreTrainedModel"}
)
"""transformers' base model class; its subclasses have ``.device``."""

METRIC_BASES = frozenset({"torchmetrics.Metric", "torchmetrics.metric.Metric"})
"""torchmetrics' base class: an ``nn.Module`` that tracks its own ``.device``."""

TORCH_MODULE_BASES = frozenset(
    {"torch.nn.Module", "torch.nn.modules.module.Module", "torch.nn.modules.Module"}
)
"""``torch.nn.Module`` itself: model code without ``.device``."""

LIBRARY_MODULE_BASES = frozenset(
    f"{module}.{name}"
    for package in ("mmengine.model", "mmcv.runner")
    for module in (package, f"{package}.base_module")
    for name in ("BaseModule", "Sequential", "ModuleList", "ModuleDict")
) | frozenset(
    f"mmengine.model.{path}BaseModel" for path in ("", "base_model.", "base_model.base_model.")
)
"""``nn.Module`` subclasses of other libraries that models derive from, without ``.device``:
OpenMMLab's ``BaseModule`` (mmengine, and mmcv 1.x's ``mmcv.runner``), its containers and
mmengine's ``BaseModel``. A head of mmdetection or mmpretrain derives from one of them,
outside the project."""
MODULE_CLASSES = (
    TORCH_MODULE_BASES
    | LIGHTNING_MODULE_BASES
    | PRETRAINED_MODEL_BASES
    | METRIC_BASES
    | LIBRARY_MODULE_BASES
)
"""Classes whose instances are modules: ``isinstance(model, nn.Module)`` tells a module (on
the computation's device) from a plain function the same parameter may be."""

STATE_FREE_BASES = (
    TORCH_MODULE_BASES
    | frozenset(name for name in LIBRARY_MODULE_BASES if name.endswith(".BaseModule"))
    | {"abc.ABC", "typing.Generic", "object"}
)
"""Bases that give their subclasses no parameters, buffers or train/eval behaviour:
``nn.Module`` itself, OpenMMLab's ``BaseModule`` (it keeps only its ``init_cfg``) and
Python's own."""

AUTOGRAD_FUNCTION_BASES = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
"""Custom autograd operations: their ``forward`` and ``backward`` get tensors, whose device
is the one they work on."""

TORCH_NN_NON_MODULES = frozenset(
    {"Parameter", "UninitializedParameter", "UninitializedBuffer", "Buffer", "ParameterList"}
)
"""Capitalised names in ``torch.nn`` that are not modules (or not subclassed as such)."""

TENSOR_FACTORIES = frozenset(
    {
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "range",
        "linspace",
        "logspace",
        "eye",
        "rand",
        "randn",
        "randint",
        "randperm",
        "tensor",
        "as_tensor",
        "empty_strided",
        "tril_indices",
        "triu_indices",
        "hann_window",
        "hamming_window",
        "blackman_window",
        "bartlett_window",
        "kaiser_window",
    }
)
"""``torch.<name>(...)`` functions that create a tensor on the default (CPU) device (the
window functions too: an STFT's window)."""

DATA_FACTORIES = frozenset({"tensor", "as_tensor"})
"""Factories whose first argument is data: a tensor argument keeps its device."""

STORABLE_FACTORIES = TENSOR_FACTORIES - DATA_FACTORIES
"""Factories that make a tensor of a size (``torch.hann_window``): one a file names uncalled
(``window_fn=torch.hann_window``) is a function called later, as often without ``device=``
(one of data keeps a tensor's device)."""

LEGACY_TENSOR_TYPES = frozenset(
    {
        "FloatTensor",
        "DoubleTensor",
        "HalfTensor",
        "BFloat16Tensor",
        "ByteTensor",
        "CharTensor",
        "ShortTensor",
        "IntTensor",
        "LongTensor",
        "BoolTensor",
        "Tensor",
    }
)
"""Legacy constructors ``torch.FloatTensor(...)``: always CPU, no usable ``device=``."""

DEVICE_TYPES = frozenset({"cuda", "mps", "xpu", "hpu", "npu", "xla", "ipu", "mtia"})
"""Accelerator device types that make a literal device string hard-coded. Not "cpu" (moving
to the CPU is a deliberate, portable choice) nor "meta" (lazy initialisation, no data)."""

CPU_RESULT_METHODS = frozenset({"cpu", "numpy", "tolist", "item"})
"""Methods whose call on a fresh tensor shows it is meant to live on the CPU."""

MOVE_METHODS = frozenset({"to", "cuda", "type_as"})
"""Methods that move a fresh tensor somewhere explicitly."""

DEVICE_ARGUMENT_MOVES = MOVE_METHODS - {"type_as"}
"""Moves whose first positional argument is the device: ``.to(d)``, ``.cuda(d)``."""

VIEW_METHODS = frozenset(
    {
        "view",
        "view_as",
        "reshape",
        "reshape_as",
        "squeeze",
        "unsqueeze",
        "permute",
        "transpose",
        "flatten",
        "contiguous",
        "expand",
        "expand_as",
        "t",
        "detach",
        "narrow",
    }
)
"""Tensor methods that give the same data seen another way: a function returning an input
through one of these hands its input back."""

FORWARD_PATH_METHODS = frozenset({"forward", "__call__", "generate"})
"""Methods that run on every batch, besides ``*_step`` and the batch-level hooks."""

FORWARD_PATH_HOOKS = frozenset(
    {"on_after_batch_transfer", "on_before_backward", "on_after_backward"}
    | {"on_before_optimizer_step", "on_before_zero_grad"}
)
"""Lightning hooks that run with the batch and the module on the device, besides the
``on_*_batch_start``/``on_*_batch_end`` ones. Not ``on_before_batch_transfer`` (the
batch is still on the CPU), checkpoint hooks (CPU tensors belong in checkpoints), nor
epoch-level hooks, where results are commonly gathered on the CPU."""

AVAILABILITY_CHECKS = frozenset({"is_available", "device_count", "is_built"})
"""Calls that make a surrounding ``if`` an explicit, checked device choice."""

PROGRAM_EXITS = frozenset({"exit", "quit", "sys.exit", "os._exit"})
"""Calls that end the program: ``if not torch.cuda.is_available(): sys.exit(1)`` demands
the GPU, as a ``raise`` there does."""

GPU_SETTINGS = frozenset(
    {
        "torch.cuda.manual_seed",
        "torch.cuda.manual_seed_all",
        "torch.cuda.seed",
        "torch.cuda.seed_all",
        "torch.cuda.empty_cache",
        "torch.cuda.synchronize",
    }
)
"""Calls that set up or wait for the GPU and place no tensor: ``if
torch.cuda.is_available(): torch.cuda.manual_seed_all(seed)`` seeds the GPU where there is
one, which a program that runs only on the GPU writes too; it offers no CPU."""

GPU_SETTING_OWNERS = frozenset({"torch.backends.cudnn", "cudnn"})
"""Where the attributes that set up the GPU live, as written (``cudnn.benchmark = True``
after ``import torch.backends.cudnn as cudnn``)."""

DEVICE_NAMING_KEYWORDS = frozenset({"device_type", "pin_memory_device"})
"""Keywords whose value names a backend and places no tensor there: which autocast to
configure (``torch.autocast(device_type=)``), whose pinned host memory a loader uses
(``DataLoader(pin_memory_device=)``)."""

HOST_MEMORY_KEYWORDS = frozenset({"pin_memory"})
"""Factory keywords that ask for page-locked host memory (``torch.empty(n,
pin_memory=True)``): a staging buffer for copies to the device, which only a CPU tensor
can be (``device="cuda"`` with it raises)."""

DEVICE_PREDICATES = frozenset({"is_cuda", "is_mps", "is_xpu", "is_cpu", "is_meta"})
"""Tensor attributes that make a surrounding ``if`` a deliberate per-device branch."""

ACCELERATOR_PREDICATES = DEVICE_PREDICATES - {"is_cpu", "is_meta"}
"""Tensor attributes true where the tensor is on an accelerator (``DEVICE_PREDICATES``)."""

CPU_LIBRARIES = frozenset(
    {"numpy", "matplotlib", "pandas", "PIL", "cv2", "sklearn", "scipy", "math", "seaborn"}
    | {"wandb", "json", "pickle", "csv", "logging", "plotly", "tensorboardX", "mlflow"}
    | {"requests"}
)
"""Libraries whose functions take CPU tensors (or convert them), or give Python data (an
HTTP client's responses): not model code."""

ARGUMENT_PLACED_PACKAGES = ("torch.distributions",)
"""Packages of torch classes whose instances hold the tensors they are built from, on those
tensors' device (``Normal(loc, scale)``): no module, nothing ``.to()`` moves."""

HOST_ARRAY_LIBRARIES = frozenset(
    {"numpy", "scipy", "sklearn", "pandas", "cv2", "PIL", "matplotlib", "seaborn"}
)
"""The ``CPU_LIBRARIES`` that read an array's host memory: a tensor handed to one
(``np.isnan(m)``) must be on the CPU, unlike one handed to ``logging`` or ``math``."""

NUMBER_LIBRARIES = frozenset({"math", "random"})
"""Standard-library modules whose functions return Python numbers: ``torch.tensor`` of one
makes a 0-dim scalar."""

NUMBER_LIBRARY_SEQUENCES = frozenset({"random.sample", "random.choices"})
"""The functions of ``NUMBER_LIBRARIES`` that return lists."""

INPUT_PLACING_MODELS = frozenset({"pyannote.audio.Pipeline"})
"""Classes whose instances move what they are called with to their own device (a pyannote
pipeline reads a CPU waveform and runs on its device): a call of one is no meeting."""

COUNTING_ITERABLES = frozenset({"tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange"})
"""``range`` with a progress bar: a loop over one counts in Python integers."""

PROGRESS_WRAPPERS = frozenset({"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm"})
"""Progress bars that yield the elements of the iterable they wrap: ``tqdm(range(n))``."""

SETUP_METHODS = frozenset(
    {"__init__", "setup", "configure_model", "configure_sharded_model", "prepare_data"}
)
"""Methods that run before Lightning moves the module: ``self.device`` is still the CPU."""

TENSOR_ARGUMENT_METHODS = frozenset(
    {
        "index_select",
        "gather",
        "scatter",
        "scatter_",
        "scatter_add",
        "scatter_add_",
        "masked_fill",
        "masked_fill_",
        "masked_select",
        "masked_scatter",
        "index_add",
        "index_add_",
        "index_copy",
        "index_fill",
        "index_put",
        "index_put_",
        "take",
        "take_along_dim",
        "where",
        "add",
        "add_",
        "sub",
        "sub_",
        "mul",
        "mul_",
        "div",
        "div_",
        "matmul",
        "mm",
        "bmm",
        "copy_",
        "lerp",
        "maximum",
        "minimum",
        "pow",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "repeat_interleave",
        *("clamp", "clamp_", "clip", "clip_", "clamp_min", "clamp_min_", "clamp_max"),
        "clamp_max_",
    }
)
"""Tensor methods whose tensor arguments must be on the receiver's device. Not ``expand_as``,
``view_as``, ``reshape_as``: they read only the other tensor's shape, on any device."""

INDEXING_METHODS = frozenset(
    {"index_select", "gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "take"}
    | {"index_add", "index_add_", "index_copy", "index_fill", "index_put", "index_put_"}
    | {"masked_fill", "masked_fill_", "masked_select", "masked_scatter", "take_along_dim"}
)
"""Tensor methods (in ``TENSOR_ARGUMENT_METHODS``) that read or write their tensor through
an index or a mask: the result is a tensor on the receiver's device, whatever device the
index was made on (the two meet at the call, where a mismatch is found)."""

ITERATING_BUILTINS = frozenset(
    {"zip", "enumerate", "list", "tuple", "iter", "sorted", "set", "int", "float", "bool"}
)
"""Builtins that turn a tensor into Python values: no device is involved any more."""

PROCESSOR_SUFFIXES = ("processor", "tokenizer", "feature_extractor", "image_processor")
"""Names (or their endings) of objects that behave like HuggingFace processors."""

PROCESSOR_LOADERS = ("Tokenizer", "Processor", "FeatureExtractor")
"""``X.from_pretrained`` with one of these in X's name loads a processor, not a model."""

IMAGE_ONLY_KEYS = frozenset({"pixel_values"})
"""What a CLIP-style processor returns when given only ``images=`` (and
``return_tensors=``): its batch holds the pixels alone."""

REMOVED_PROCESSOR_METHODS = frozenset({"encode_plus", "batch_encode_plus", "prepare_seq2seq_batch"})
"""Tokenizer methods that transformers 5 removed, which code written for 4.x still calls."""

PROCESSOR_METHODS = frozenset({"encode", "pad", "__call__"}) | REMOVED_PROCESSOR_METHODS
"""Processor methods that build tensors when given ``return_tensors="pt"``."""

MOVE_HELPER_NAMES = ("to_device", "move_to", "transfer_batch_to_device")
"""Fragments of helper names that say the helper moves its argument to a device."""

UNPACKING_BUILTINS = frozenset({"dict", "print", "len", "list", "tuple", "zip", "sorted"})
"""Builtins that may take ``**inputs`` or ``inputs`` without running a model."""

SILENT_BUILTINS = frozenset(
    {"print", "len", "isinstance", "str", "repr", "format", "range", "type", "id", "hash"}
)
"""Builtins that neither move a tensor nor mix it with others."""

TEXT_BUILTINS = frozenset({"str", "repr", "format"})
"""Builtins that write a value as text: of a device, its name (``str(device)``)."""

TEXT_METHODS = frozenset({"split", "rsplit", "partition", "lower", "upper", "strip"})
"""``str`` methods whose result is still part of the text (``str(device).split(":")[0]``:
the device type)."""

TORCH_DTYPES = frozenset(
    {"float", "float16", "float32", "float64", "bfloat16", "half", "double", "int", "long"}
    | {"int8", "int16", "int32", "int64", "uint8", "bool", "complex64", "complex128"}
)
"""``torch.<dtype>`` names: ``x.to(torch.float32)`` casts, it does not move."""

HYPERPARAMETER_ROOTS = ("self.hparams", "self.config", "hparams.", "config.", "cfg.", "args.")
"""``torch.tensor(self.hparams.weights)``: configuration values are Python data."""

MODULE_ONLY_METHODS = frozenset({"eval", "train", "apply", "zero_grad"})
"""Methods modules have and tensors do not: ``x.eval()`` returns a module."""

MAP_LOCATION_LOADERS = {
    "torch.load": 1,
    "torch.serialization.load": 1,
    "torch.jit.load": 1,
    "torch.jit._serialization.load": 1,
    "torch.hub.load_state_dict_from_url": 2,
}
"""Functions taking ``map_location``, and the position it has as a positional argument."""

MAP_LOCATION_METHODS = {"load_from_checkpoint": 1}
"""Methods taking ``map_location`` (Lightning's ``Model.load_from_checkpoint(path, ...)``)."""

ARRAY_TENSOR_FACTORIES = frozenset({"from_numpy", "frombuffer"})
"""``torch.<name>(array)``: a new CPU tensor sharing memory with Python-side data."""

INTEGER_FACTORIES = frozenset({"randint", "randperm", "tril_indices", "triu_indices"})
"""Factories whose default dtype is an integer type: ``.half()`` leaves them alone."""

INTEGER_DTYPES = frozenset(
    {"long", "int", "int8", "int16", "int32", "int64", "uint8", "short", "bool"}
    | {"uint16", "uint32", "uint64"}
)
"""``torch.<dtype>`` names (and tensor methods) that are not floating point: module-wide
casts such as ``.half()`` or ``.to(torch.bfloat16)`` skip buffers of these types."""

FLOAT_DTYPES = frozenset(
    {"float", "float16", "float32", "float64", "bfloat16", "half", "double"}
    | {"complex64", "complex128", "cfloat", "cdouble"}
)
"""``torch.<dtype>`` names (and tensor methods) of floating point types."""

INTEGER_TENSOR_TYPES = frozenset(
    {"LongTensor", "IntTensor", "BoolTensor", "ByteTensor", "CharTensor", "ShortTensor"}
)
"""Legacy constructors of integer tensors (see ``LEGACY_TENSOR_TYPES``)."""

MODULE_MOVING_METHODS = frozenset({"_apply", "to", "cuda", "cpu", "to_empty", "xpu", "ipu", "mtia"})
"""A model class that defines one of these moves (some of) its tensors itself: there,
choosing the device is the code's job, as in a script. (A method named after another
device type, such as a class's own ``def mps(self)``, is a move too: ``index.own_moves``.)"""

TENSOR_TUPLE_RESULTS = frozenset(
    {"split", "chunk", "unbind", "tensor_split", "hsplit", "vsplit", "dsplit", "meshgrid"}
)
"""Calls (``torch.<name>`` or the tensor method) that return a tuple of tensors: the tuple
has no ``.device`` to borrow. ``nonzero`` with ``as_tuple=True`` and ``where`` of its
condition alone too (``nodes.gives_a_tuple_of_tensors``)."""

NON_TENSOR_RESULTS = frozenset(
    {"tolist", "item", "numpy", "size", "dim", "numel", "data_ptr", "element_size"}
    | {"cpu", "nelement", "stride", "storage_offset", "is_contiguous", "__len__"}
)
"""Tensor methods whose result is not a tensor to keep on a device (``.cpu()`` is an
explicit choice of the CPU)."""

LIGHTNING_DATAMODULE_BASES = frozenset(
    {
        f"{package}.{path}LightningDataModule"
        for package in ("lightning.pytorch", "pytorch_lightning")
        for path in ("", "core.", "core.datamodule.")
    }
    | {"lightning.LightningDataModule"}
)
"""Bases that make a class a LightningDataModule: the trainer moves its batches."""

DATASET_BASES = frozenset(
    {
        f"{module}.{name}"
        for module in ("torch.utils.data", "torch.utils.data.dataset")
        for name in (
            *("Dataset", "IterableDataset", "TensorDataset", "ConcatDataset"),
            *("ChainDataset", "StackDataset", "Subset"),
        )
    }
)
"""torch's dataset classes; a class deriving from one is a Dataset (data-loader code)."""

DATASET_MODULE_PREFIXES = ("torchvision.datasets.",)
"""Modules whose capitalised classes are all Datasets."""

DATASET_ITEM_METHODS = frozenset({"__getitem__", "__getitems__", "__iter__", "__next__"})
"""Dataset methods that DataLoader workers run for every sample."""

MAP_STYLE_DATASET_PROTOCOL = frozenset({"__getitem__", "__len__"})
"""What a map-style dataset implements (torch.utils.data's documentation): a DataLoader
indexes an object that defines both, whether or not it derives from ``Dataset``."""

MAP_STYLE_ITEM_METHODS = frozenset({"__getitem__", "__getitems__"})
"""The methods of a map-style dataset that DataLoader workers run to fetch samples."""

COLLATE_KEYWORDS = frozenset({"collate_fn", "data_collator"})
"""Keyword arguments that hand a function to a data loader (``DataLoader``, HF ``Trainer``)."""

COLLATE_NAME_PART = "collat"
"""What the name of a collate function (``pad_collate``, ``collate_fn``) or of a class
whose instances are one (``DataCollatorWithPadding``) spells, in lower case."""

BATCH_TRANSFER_HOOKS = frozenset({"transfer_batch_to_device", "on_after_batch_transfer"})
"""LightningDataModule hooks that run in the main process with the target device known."""

TRAINER_BASES = frozenset(
    {
        "transformers.Trainer",
        "transformers.trainer.Trainer",
        "transformers.Seq2SeqTrainer",
        "transformers.trainer_seq2seq.Seq2SeqTrainer",
    }
)
"""transformers' Trainer: it holds the model and puts each batch on the device it trains on
before ``compute_loss``, ``training_step`` and ``prediction_step``: a subclass's methods
are a device context."""

OPTIMIZER_BASES = frozenset({"torch.optim.Optimizer", "torch.optim.optimizer.Optimizer"})
"""torch's optimizer base: a subclass updates the parameters it is given where they are, so
its methods are a device context."""

TRAINER_PLACING_METHODS = frozenset({"_prepare_inputs", "_prepare_input"})
"""Methods of transformers' Trainer that return what they are given on the device it trains
on (``super()._prepare_inputs(inputs)`` in a subclass)."""

ACCELERATOR_CARRYING_METHODS = frozenset(
    {"gather", "gather_for_metrics", "reduce", "pad_across_processes"}
)
"""Methods of accelerate's ``Accelerator`` (``self.accelerator`` of a transformers Trainer)
whose result is on the device of the tensor they are given."""

DDP_CLASSES = frozenset(
    {
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
        "torch.distributed.fsdp.FullyShardedDataParallel",
        "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
    }
)
"""Wrappers whose ``device_ids=``/``output_device=``/``device_id=`` pin a process to a GPU."""

CUDA_ONLY_WRAPPERS = frozenset(
    {
        "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel",
        "torch.nn.parallel.data_parallel.DataParallel",
    }
)
"""Wrappers that run only on CUDA GPUs and take their inputs from any of them
(``nn.DataParallel`` scatters from wherever the inputs are)."""

DDP_DEVICE_KEYWORDS = ("device_ids", "output_device", "device_id")
"""The keywords of ``DDP_CLASSES`` that name GPUs."""

SET_DEVICE_FUNCTIONS = frozenset(
    f"torch.{kind}.set_device" for kind in ("cuda", "xpu", "npu", "mlu", "musa")
)
"""Functions that make one GPU the process's current device (``torch.npu``, ``torch.mlu``
and ``torch.musa`` are registered by their vendors' plugins)."""

CURRENT_DEVICE_STREAMS = frozenset(
    {"torch.cuda.Stream", "torch.cuda.current_stream", "torch.cuda.default_stream"}
)
"""What makes or returns a CUDA stream, on the current GPU unless told a device: an object
that keeps one runs its work on that GPU."""

BARRIER_FUNCTIONS = frozenset({"torch.distributed.barrier"})
"""Collectives whose ``device_ids=`` (a ``DDP_DEVICE_KEYWORDS`` keyword) name the GPU
each process uses."""

GLOBAL_RANK_NAMES = frozenset({"get_rank", "global_rank", "process_index"})
"""Names of what holds or returns a process's rank among all processes of all nodes:
``torch.distributed.get_rank`` (and the wrappers that copy its name), Lightning's
``Trainer.global_rank``, transformers' and accelerate's ``process_index``. As a device
index it is past the last GPU on every node but the first (the local rank is right)."""

LOCAL_RANK_NAMES = frozenset({"local_process_index", "local_rank"})
"""Names of what holds a process's rank on its own node, the index of its GPU: accelerate's
``local_process_index`` (its state makes that GPU current), Lightning's
``Trainer.local_rank``, transformers' ``TrainingArguments.local_rank``."""

ENVIRONMENTS = frozenset({"os.environ"})
"""The process's environment, which a script writes (``os.environ["MASTER_ADDR"] = ...``,
``os.environ["CUDA_VISIBLE_DEVICES"] = args.gpu``)."""

DEFAULT_DEVICE_SETTERS = frozenset({"torch.set_default_tensor_type", "torch.set_default_device"})
"""Functions that choose where factories without ``device=`` make their tensors
(``torch.set_default_tensor_type("torch.cuda.FloatTensor")``): not ``torch.from_numpy``'s,
nor a legacy typed constructor's (``torch.LongTensor(...)``), which stay on the CPU."""

CURRENT_GPU_SETTERS = frozenset({"local_process_index"})
"""``LOCAL_RANK_NAMES`` whose owner makes that GPU the process's current device itself
(accelerate's ``PartialState`` calls ``torch.cuda.set_device``); another local rank is the
current GPU only where the project sets it (``SET_DEVICE_FUNCTIONS``)."""

OTHER_ACCELERATOR_NAMESPACES = frozenset(
    {"torch.xpu", "torch.mps", "torch.backends.mps", "torch.mtia"}
    | {"torch.npu", "torch.mlu", "torch.musa", "torch.hpu"}
)
"""Where torch keeps the functions of an accelerator other than CUDA
(``torch.xpu.is_available``, ``torch.backends.mps.is_available``, ``torch.npu.device_count``;
the second set registered by vendors' plugins): a project that calls one offers that
device as well as the GPU."""

CURRENT_DEVICE_FUNCTIONS = frozenset({"torch.cuda.current_device"})
"""Functions that return the index of the process's current GPU."""

MAIN_PROCESS_FLAGS = frozenset(
    {"is_main_process", "is_local_main_process", "is_world_process_zero"}
    | {"is_local_process_zero", "is_global_zero"}
)
"""Names of what holds or returns whether this process is the first of a distributed job
(of all nodes or of its own): accelerate's ``is_main_process`` and
``is_local_main_process``, the Hugging Face ``Trainer``'s ``is_world_process_zero()`` and
``is_local_process_zero()``, Lightning's ``is_global_zero``. Code under one runs in one
process."""

MAIN_PROCESS_DECORATORS = frozenset({"rank_zero_only", "on_main_process", "on_local_main_process"})
"""Decorators that run a function in the first process only: Lightning's
``rank_zero_only``, accelerate's ``Accelerator.on_main_process`` and
``on_local_main_process``."""

GLOBAL_RANK_VARIABLES = frozenset({"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"})
"""Environment variables in which launchers (torchrun, SLURM, Open MPI, MPICH) give a
process its global rank."""

LOCAL_RANK_VARIABLE = "LOCAL_RANK"
"""The environment variable in which launchers give a process its rank on its own node."""

MASTER_ADDRESS_VARIABLE = "MASTER_ADDR"
"""The environment variable naming the host of the rank-0 process (``env://`` set-up)."""

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1"})
"""Host names of this machine: a rendezvous there gathers the processes of one node."""

CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES"
"""The environment variable launchers set per process to choose its GPUs."""

STATELESS_NN_MODULES = frozenset(
    {"Identity", "Flatten", "Unflatten", "Softmax", "LogSoftmax", "Softmin", "Softmax2d"}
    | {"ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Tanh"}
    | {"Sigmoid", "Hardtanh", "Hardswish", "Hardsigmoid", "Softplus", "Softsign", "Tanhshrink"}
    | {"LogSigmoid", "Hardshrink", "Softshrink", "Threshold", "GLU"}
    | {"MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d"}
    | {"AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d"}
    | {"AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "Upsample", "PixelShuffle", "PixelUnshuffle"}
    | {"ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad2d", "ReplicationPad2d"}
    | {"ChannelShuffle", "CosineSimilarity", "PairwiseDistance"}
)
"""``torch.nn`` modules without parameters or buffers that behave alike in train and eval
mode: leaving them out of ``parameters()``, ``.to()`` and ``.eval()`` changes nothing."""
CHILD_CALLED_METHODS = frozenset({"train"})
"""Methods ``nn.Module`` calls on each registered child with its own arguments
(``train(mode)``, from ``.train()`` and ``.eval()``): a project module class that overrides
one for another purpose (``train(self, data, labels)``) breaks once it is registered."""

PLAIN_VALUE_BUILTINS = frozenset(
    {"int", "float", "bool", "str", "len", "min", "max", "abs", "round", "tuple"}
)
"""Builtins that make numbers, strings or tuples of them: nothing a module registers."""

WEIGHTED_LOSS_KEYWORDS = frozenset({"weight", "pos_weight"})
"""A ``torch.nn`` loss given one of these holds a buffer; without, it is stateless."""

MODULE_DICT_TAKEN_KEYS = frozenset(
    {"keys", "items", "values", "update", "pop", "clear", "training", "forward", "to"}
    | {"cuda", "cpu", "type", "float", "double", "half", "bfloat16", "train", "eval"}
    | {"apply", "parameters", "buffers", "children", "modules", "state_dict", "zero_grad"}
    | {"add_module", "register_buffer", "register_parameter", "extra_repr", "dump_patches"}
)
"""Keys ``nn.ModuleDict`` refuses: attributes of the ``ModuleDict`` itself."""

BACKEND_LIBRARIES = {
    "megatron": "cuda",
    "habana_frameworks": "hpu",
    "torch_npu": "npu",
    "vllm_ascend": "npu",
    "openvino": "cpu",
    "intel_npu_acceleration_library": "cpu",
    "nvdiffrast": "cuda",
    "tinycudann": "cuda",
}
"""Libraries that run on one device type only, each process on the device their set-up made
current (Megatron-LM on CUDA, Intel Gaudi's ``habana_frameworks`` on HPU, Ascend's
``torch_npu`` and vLLM's Ascend plugin), or whose kernels run on the current device of the
one type they are built for (nvdiffrast's rasterizer and tiny-cuda-nn, CUDA): a module that
uses one is code of that backend (``ProjectIndex.backends``).
``cpu``: runtimes that take and give host tensors whatever hardware they drive (OpenVINO,
Intel's NPU library): a module bound to them alone computes on the CPU.
``BACKEND_FREE_PARTS`` are the parts of them that bind to nothing."""

BACKEND_FREE_PARTS = (
    "openvino.frontend",
    "openvino.tools",
    "openvino.convert_model",
    "openvino.save_model",
    "openvino.opset",
    "openvino.runtime.opset",
    "openvino.Model",
    "openvino.runtime.Model",
)
"""Converters of a torch model to another runtime (``openvino.convert_model``,
``openvino.frontend.pytorch``), and the builders of the graph they convert to (an opset's
operations, ``openvino.Model``: a converter extension's parts): the model they convert runs
where it is, on any device, and a graph node is no tensor."""

KERNEL_SOURCE_TYPES = {".cu": "cuda", ".cuh": "cuda"}
"""Suffixes of kernel source files and the device type they compile for: a module that
compiles an extension from one when it is imported (``EXTENSION_COMPILERS``) launches
kernels of that type, on its current device, and cannot even be imported without it."""

EXTENSION_COMPILERS = frozenset({"torch.utils.cpp_extension.load"})
"""Functions that compile and import a torch extension from the source files they are given."""

EXTENSION_DECLARATIONS = frozenset(
    {"torch.utils.cpp_extension.CUDAExtension", "torch.utils.cpp_extension.CppExtension"}
)
"""Build declarations of a compiled extension module (a ``setup.py``'s
``CUDAExtension("pkg._ext", ["ext.cpp", "kernel.cu"])``): the module their first argument
names launches the kernels of the sources they list (a ``CppExtension`` of the same name,
a CPU build, runs on the CPU)."""

CPU_SOURCE_WORD = "cpu"
"""Written in the path of a C++ source file (``vision_cpu.cpp``, ``csrc/cpu/nms.cpp``): the
extension has a CPU implementation too, chosen by the tensors' device."""

PLAIN_DECORATORS = frozenset(
    {
        "staticmethod",
        "classmethod",
        "property",
        "setter",
        "getter",
        "deleter",
        "abstractmethod",
        "cached_property",
        "lru_cache",
        "cache",
        "wraps",
        "contextmanager",
        "no_grad",
        "inference_mode",
        "enable_grad",
        "autocast",
        "custom_fwd",
        "custom_bwd",
        "once_differentiable",
        "script",
        "ignore",
        "unused",
        "export",
    }
)
"""Last names of decorators that wrap a definition and register it nowhere (Python's,
``torch.no_grad``, ``torch.jit.script``): the definition runs only where code names it."""

NN_MODULE_METHODS = frozenset(
    {
        "_apply",
        "_call_impl",
        "_get_backward_hooks",
        "_get_backward_pre_hooks",
        "_get_name",
        "_load_from_state_dict",
        "_maybe_warn_non_full_backward_hook",
        "_named_members",
        "_register_load_state_dict_pre_hook",
        "_register_state_dict_hook",
        "_replicate_for_data_parallel",
        "_save_to_state_dict",
        "_slow_forward",
        "_wrapped_call_impl",
        "add_module",
        "apply",
        "bfloat16",
        "buffers",
        "children",
        "compile",
        "cpu",
        "cuda",
        "double",
        "eval",
        "extra_repr",
        "float",
        "forward",
        "get_buffer",
        "get_extra_state",
        "get_parameter",
        "get_submodule",
        "half",
        "ipu",
        "load_state_dict",
        "modules",
        "mtia",
        "named_buffers",
        "named_children",
        "named_modules",
        "named_parameters",
        "parameters",
        "register_backward_hook",
        "register_buffer",
        "register_forward_hook",
        "register_forward_pre_hook",
        "register_full_backward_hook",
        "register_full_backward_pre_hook",
        "register_load_state_dict_post_hook",
        "register_load_state_dict_pre_hook",
        "register_module",
        "register_parameter",
        "register_state_dict_post_hook",
        "register_state_dict_pre_hook",
        "requires_grad_",
        "set_extra_state",
        "set_submodule",
        "share_memory",
        "state_dict",
        "to",
        "to_empty",
        "train",
        "type",
        "xpu",
        "zero_grad",
    }
)
"""The methods ``torch.nn.Module`` defines (dunders aside): a subclass's method of one of
these names runs when the module's own machinery calls it (``forward`` by ``__call__``,
``extra_repr`` by ``repr``), though no code of the project names it."""

MODULE_LOADERS = frozenset(
    {"import_module", "__import__", "load_source", "spec_from_file_location", "run_path"}
)
"""Functions that load a module by a name or path computed at run time
(``importlib.import_module(f"models.{arch}")``, ``imp.load_source(name, path)``): a module
no text names may run, and what it defines is what the code then names
(``module.Network()``), or looks up by a computed name (``getattr(module, cfg.name)``)."""

RUN_TIME_LOOKUPS = MODULE_LOADERS | frozenset(
    {
        "get_obj_from_str",
        "instantiate_from_config",
        "instantiate",
        "locate",
        "__subclasses__",
        "__init_subclass__",
    }
)
"""Functions that load a module or an object by a name computed at run time
(``MODULE_LOADERS``, a config's ``instantiate(cfg.model)``), and ways to find classes
without naming them (``Base.__subclasses__()``, a registry filled by
``__init_subclass__``): a project using one may run code that no text of it names."""

ENTRY_FILES = frozenset({"setup.py", "conftest.py", "hubconf.py", "__main__.py", "manage.py"})
"""Files that tools load by their name (setuptools, pytest, ``torch.hub``, ``python -m``):
they run though no module imports them."""

EXTENSION_MODULE_TYPES = {"_cuda": "cuda"}
"""Name endings of compiled extension modules and the one device type their kernels run on
(``import pointnet2_cuda``, ``knn_cuda``, as ``CUDAExtension("lltm_cuda", ...)`` names them):
importing one that is no module of the project binds to that type, as a library does."""

KERNEL_LIBRARIES = {
    "flash_attn": "cuda",
    "flashinfer": "cuda",
    "deep_gemm": "cuda",
    "flash_mla": "cuda",
    "sgl_kernel.flash_attn": "cuda",
    "sgl_kernel.flash_mla": "cuda",
    "aiter": "cuda",
    "cpm_kernels": "cuda",
}
"""Libraries (or parts of one) of kernels built for one device type only: FlashAttention
(CUDA and ROCm GPUs), FlashInfer, DeepSeek's DeepGEMM and FlashMLA (NVIDIA), sgl-kernel's
FlashAttention and FlashMLA ports (its other kernels have CPU builds too), AMD's AITER (ROCm,
whose GPUs torch calls ``cuda``), OpenBMB's ``cpm_kernels`` (CUDA). Unlike
``BACKEND_LIBRARIES``, code often calls one on one path among several (flash attention
beside SDPA): a module is bound to its type only when it imports it whenever it is
imported, as a compiled extension (``EXTENSION_MODULE_TYPES``), since it cannot even be
imported without it."""

ONE_DEVICE_PER_PROCESS_TYPES = frozenset({"hpu"})
"""Device types whose processes each see one device, index 0: Intel Gaudi's bridge gives a
process one HPU (the one of its local rank, or the first free one), so ``"hpu:0"`` there is
the process's own HPU, as ``"hpu"`` is, whichever it is."""

BACKEND_OP_NAMESPACES = {f"torch.ops.{kind}": kind for kind in DEVICE_TYPES}
"""The operator namespaces named after a device type (``torch.ops.hpu.cast_to_fp8_v2``): their
kernels run on that device only, so code that calls them is code of that backend."""

DEVICE_SWITCHES = frozenset({"torch.cuda.device", "torch.cuda.device_of", "torch.cuda.stream"})
"""Context managers that make another device (or a stream's) current inside their block
(``with torch.cuda.device(gpu_id):``)."""

TOLD_DEVICE_SWITCHES = frozenset({"torch.cuda.device", "torch.cuda.stream"})
"""The ``DEVICE_SWITCHES`` whose block runs on a GPU whatever they are given (not
``torch.cuda.device_of``: a no-op for a CPU tensor, where ``"cuda"`` is then another device)."""

PROCESS_GROUP_TYPES = frozenset({"ProcessGroup", "ParallelContext"})
"""Types of a process group or of a framework's bundle of them, as annotations name them
(torch's ``ProcessGroup``, nanotron's and ColossalAI's ``ParallelContext``): code handed one
runs as one rank of a distributed job, inside the set-up that made the rank's GPU current."""

TEST_PACKAGES = frozenset({"tests", "test", "testing"})
"""Package names whose modules are test code, run by a test runner (an entry point)."""

COLLECTIVE_GROUPS = {
    f"torch.distributed.{name}": position
    for names, position in (
        (("all_reduce", "all_gather", "all_gather_into_tensor", "broadcast", "all_to_all"), 2),
        (("send", "recv", "isend", "irecv"), 2),
        (("reduce", "reduce_scatter", "reduce_scatter_tensor", "gather", "scatter"), 3),
        (("all_to_all_single",), 4),
    )
    for name in names
}
"""``{collective: position of its group}``: ``torch.distributed`` functions that exchange
tensors between processes, over the process group given at that position or as
``group=`` (none: the default group). Under NCCL (the GPU backend) every tensor they get
must be on the process's GPU, as the computation's are; under gloo, on the CPU. Not the
``*_object`` ones, which pickle Python objects and place their tensors themselves."""

COLLECTIVE_FUNCTIONS = frozenset(COLLECTIVE_GROUPS)
"""The collectives of ``COLLECTIVE_GROUPS``."""

MEETING_FUNCTIONS = frozenset(
    f"torch.{name}"
    for name in (
        *("cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "where"),
        *("matmul", "mm", "bmm", "einsum", "addmm", "baddbmm", "dot", "outer", "cross"),
        *("add", "sub", "mul", "div", "maximum", "minimum", "lerp", "cdist", "kron"),
        *("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"),
        *("gather", "scatter", "scatter_add", "index_select", "masked_fill", "masked_select"),
        *("take_along_dim", "bucketize", "searchsorted", "isclose", "allclose", "equal"),
        *("meshgrid", "cartesian_prod", "block_diag"),
        *("nn.functional.linear", "nn.functional.bilinear", "nn.functional.embedding"),
        *("nn.functional.cross_entropy", "nn.functional.nll_loss", "nn.functional.mse_loss"),
        *("nn.functional.l1_loss", "nn.functional.smooth_l1_loss", "nn.functional.kl_div"),
        *("nn.functional.binary_cross_entropy", "nn.functional.cosine_similarity"),
        *("nn.functional.binary_cross_entropy_with_logits", "nn.functional.grid_sample"),
        *("nn.functional.scaled_dot_product_attention", "nn.functional.conv1d"),
        *("nn.functional.conv2d", "nn.functional.conv3d", "nn.functional.layer_norm"),
        *("clamp", "clip", "clamp_min", "clamp_max", "stft", "istft"),
    )
)
"""torch functions whose tensor arguments must all be on one device: where a CPU tensor
meets a tensor on the computation's device (``torch.stft``'s signal and window; not
``pack_padded_sequence``, whose ``lengths`` belong on the CPU, nor ``broadcast_tensors``,
which only expands each tensor where it is)."""

JOINING_FUNCTIONS = frozenset(
    {"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack"}
)
"""torch functions (last names) that join a sequence of tensors into one: its tensors meet
one another, 0-dim ones too (``SCALAR_REFUSING_OPERATIONS``)."""

SCALAR_REFUSING_OPERATIONS = frozenset(
    {
        *JOINING_FUNCTIONS,
        *("clamp", "clamp_", "clip", "clip_", "clamp_min", "clamp_min_", "clamp_max"),
        *("clamp_max_", "index_select", "take", "bucketize", "searchsorted", "equal"),
    }
)
"""torch functions and tensor methods (last names) that want every tensor on one device,
0-dim CPU tensors too. Arithmetic and comparisons run in a ``TensorIterator`` that lets
one 0-dim CPU tensor meet a CUDA one (``torch.where`` and ``masked_fill`` move it
themselves); these ops' CUDA kernels check that all tensors share the device first
(``device_check`` left at ``ExactSame`` in ATen's ``native_functions.yaml``, or they call
such an op: ``stack`` and its kin ``cat``, ``clip`` ``clamp``), so ``torch.stack`` of two
0-dim results, or ``x.clamp(max=torch.tensor(1.0))`` on CUDA, fails."""

TENSOR_HOST_ATTRIBUTES = frozenset(
    {"shape", "ndim", "dtype", "is_cuda", "requires_grad", "is_leaf", "layout", "itemsize"}
    | {"is_sparse", "is_quantized", "is_meta", "is_mps", "is_xpu", "training"}
)
"""Attributes of a tensor (or module) that are Python values, on no device."""

NUMBER_TYPES = frozenset({"int", "float", "complex", "bool"})
"""Builtin number types: ``isinstance(p, (int, float))`` holds where ``p`` is a Python number,
on no device."""

HOST_ANNOTATIONS = frozenset(
    {"int", "float", "bool", "str", "bytes", "complex", "None", "list", "tuple", "dict"}
    | {"set", "List", "Tuple", "Dict", "Set", "Sequence", "Optional", "Union", "Literal"}
    | {"Mapping", "Iterable", "typing"}
)
"""Names in a parameter's annotation that describe Python data, not a tensor."""

FULL_REDUCTIONS = frozenset(
    {"sum", "prod", "mean", "max", "min", "amax", "amin", "norm", "all", "any", "std", "var"}
    | {"median", "count_nonzero", "argmax", "argmin"}
)
"""Reductions that, given no dimension, leave a 0-dim tensor (``t.sum()``, ``torch.prod(t)``)."""

TENSOR_ONLY_METHODS = frozenset(
    {"contiguous", "unsqueeze", "repeat_interleave", "masked_fill", "index_select"}
    | {"stride", "element_size"}
    | {"new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "type_as", "expand_as"}
)
"""Methods of a tensor that a NumPy array, a list, a number or a ``torch.Size`` lacks (not
``numel``: a shape has it; an array has ``strides`` and ``itemsize``, no ``stride()``): a
parameter the code calls one on (``boxes.contiguous()``) holds a tensor, whatever its
annotation says."""

TENSOR_PARAMETER_NAMES = frozenset(
    {"x", "input", "hidden_states", "inputs_embeds", "input_ids", "pixel_values"}
    | {"logits", "tensor", "feats", "features"}
)
"""Parameter names that hold a tensor (a fix may borrow its ``.device``)."""

CONFIG_PARAMETERS = frozenset({"config", "cfg", "args", "hparams", "opt", "opts"})
"""Parameter names that hold configuration (Python data), not tensors."""

CARRYING_LIBRARIES = frozenset({"einops", "torchvision.ops"})
"""Libraries (or their packages) whose functions return a result on their first argument's
device: einops' rearranged tensor, torchvision's box areas, IoUs and kept indices."""

TRANSPARENT_DECORATORS = frozenset(
    {
        "builtins.staticmethod",
        "builtins.classmethod",
        "builtins.property",
        "functools.wraps",
        "functools.lru_cache",
        "functools.cache",
        "functools.cached_property",
        "abc.abstractmethod",
        "typing.overload",
        "torch.no_grad",
        "torch.enable_grad",
        "torch.inference_mode",
        "torch.compile",
        "torch.jit.script",
        "torch.jit.ignore",
        "torch.jit.unused",
        "torch.jit.export",
        "torch.autograd.function.once_differentiable",
    }
)
"""Decorators that call the function with the arguments as given: what its parameters meet
inside is what its callers pass. Any other decorator may move or convert them first (a
project's ``@auto_move_data``), so its function's parameters place no requirement on them."""

MODULE_MAPPINGS = frozenset({"torch.nn.ModuleDict", "torch.nn.ParameterDict"})
"""Containers of submodules or parameters by name: iterating one yields its keys, strings."""

FUNCTION_TRANSFORMS = frozenset({"torch.vmap", "torch.func.vmap"})
"""Transforms of a function (``torch.vmap(torch.diag)``): calling what they return computes
the function on the arguments, so a torch function's result is on their device."""

CROSS_DEVICE_METHODS = frozenset({"copy_"})
"""Tensor methods (in ``TENSOR_ARGUMENT_METHODS``) that also take a tensor on another
device: ``t.copy_(cpu)`` copies across devices."""

IN_PLACE_UPDATES = (
    frozenset(name for name in TENSOR_ARGUMENT_METHODS if name.endswith("_")) - CROSS_DEVICE_METHODS
)
"""Tensor methods that write into their tensor what they compute with their tensor
arguments (``t.add_(x)``, which ``t += x`` calls): the written tensor is the kernel's
output, which must be on its device even when it is a 0-dim CPU tensor."""

AUGMENTED_ASSIGNMENT_METHODS = {
    "+=": "add_",
    "-=": "sub_",
    "*=": "mul_",
    "/=": "div_",
    "//=": "floor_divide_",
    "%=": "remainder_",
    "**=": "pow_",
    "@=": "matmul",
    "&=": "bitwise_and_",
    "|=": "bitwise_or_",
    "^=": "bitwise_xor_",
    "<<=": "bitwise_left_shift_",
    ">>=": "bitwise_right_shift_",
}
"""The tensor method an augmented assignment calls (``t += x`` is ``t.add_(x)``): it
updates ``t`` in place where the method is one of ``IN_PLACE_UPDATES``."""

MODULE_TENSOR_METHODS = frozenset(
    {"parameters", "buffers", "named_parameters", "named_buffers", "state_dict"}
)
"""``self.parameters()``: a module's own tensors, on its device."""

MODULE_REGISTRARS = frozenset({"register_buffer", "register_parameter", "add_state"})
"""``self.register_buffer("name", t)``: ``self.name`` then moves with the module; so does a
torchmetrics state, ``self.add_state("name", default=...)``."""

COLLECTION_UPDATERS = frozenset({"append", "extend", "insert", "update", "add"})
"""``xs.append(t)``: the container now also holds ``t``."""

CPU_RESULT_FUNCTIONS = frozenset(
    {"torch._shape_as_tensor", "torch.onnx.operators.shape_as_tensor", "torch.get_rng_state"}
)
"""torch functions whose result is a CPU tensor whatever their arguments' device: a shape
made a tensor for tracing (also through ``torch.onnx.operators``), the CPU generator's state."""

CPU_ARGUMENTS: dict[str, dict[str, int]] = {
    "torch.nn.utils.rnn.pack_padded_sequence": {"lengths": 1},
    **{
        ctc: {"targets": 1, "input_lengths": 2, "target_lengths": 3}
        for ctc in (
            "torch.nn.functional.ctc_loss",
            "torch.nn.CTCLoss",
            "torch.nn.modules.loss.CTCLoss",
        )
    },
}
"""``{function or module class: {parameter: position}}``: arguments torch takes on the CPU
on purpose next to device inputs (positions as a caller counts them, a module's as its
call passes them): ``pack_padded_sequence``'s ``lengths`` must be there, CTC moves its
targets and lengths itself (its cuDNN path even requires them there). A CPU tensor handed
only there meets nothing."""

CPU_LENGTHS_FUNCTIONS = frozenset(
    name for name, parameters in CPU_ARGUMENTS.items() if "lengths" in parameters
)
"""torch functions whose ``lengths`` must be a CPU tensor (or a list): a name passed there
as it is holds CPU lengths, in the functions of that file that take it too (NISQA hands
one ``n_wins`` to every block of its model)."""

RECORD_CLASS_DECORATORS = frozenset(
    {
        "dataclasses.dataclass",
        "attr.s",
        "attr.attrs",
        "attr.define",
        "attr.frozen",
        "attr.mutable",
        "attrs.define",
        "attrs.frozen",
        "attrs.mutable",
    }
)
"""Class decorators that write the class's ``__init__`` from its fields: a field's default
is that ``__init__``'s parameter default (glide's ``device: torch.device =
attr.ib(default=torch.device("cuda"))``)."""

RECORD_FIELD_FUNCTIONS = frozenset(
    {"dataclasses.field", "attr.ib", "attr.attrib", "attr.field", "attrs.field"}
)
"""What declares a field of a ``RECORD_CLASS_DECORATORS`` class, its ``default=`` the
parameter's default."""

PROCESS_GROUP_INITS = {"torch.distributed.init_process_group": 0, "torch.distributed.new_group": 2}
"""``{function: position of backend}``: what makes a process group. A file that makes one
with a gloo backend (``"gloo"``, ``"cpu:gloo,cuda:nccl"``) hands its collectives CPU
tensors on purpose: gloo takes them; so does a collective given an attribute the project
assigns only such groups (made here, or by a project function handing its backend on)."""

EXPORT_ONLY_CHECKS = frozenset(
    {"torch.onnx.is_in_onnx_export", "transformers.utils.is_torch_fx_proxy"}
)
"""Tests true only while a model is exported to ONNX or traced by ``torch.fx``: the branch
they guard is the export's graph, not the computation that runs on the device (kornia's
``normalize`` skips its moves there, and moves its operands on every other path; T5's
``_shift_right``, copied into trainers, builds its fx branch with a CPU ``torch.full``)."""

DATASET_PARAMETER_NAMES = ("dataset", "_dataset", "_ds")
"""Parameter names (or their endings) that hold a dataset: its samples are what data
loading made, on the CPU (``train_dataset``)."""


ALLOCATOR_REGISTRARS = frozenset({"triton.set_allocator"})
"""Functions that keep a callback the library calls on the device it works on (the
current one): a literal device inside such a callback places nothing of the caller's."""

PLACING_KEYWORDS = ("device", "map_location")
"""Keywords whose value is where a call puts what it makes (``torch.zeros(device=)``) or
loads (``torch.load(map_location=)``)."""
