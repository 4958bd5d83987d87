# A JAX model recorded for perfgate's tests on a lent H100 (JAX 0.11.2, 2026-11-27; tests/data/README.md): a
# Transformer block (BF16) whose steps are named, not numbered: jax.profiler.TraceAnnotation("train_step")
# per step. argv[1]: the output name. Run with JAX's default flags (XLA's command buffers on:
# h100_jax_block) and with XLA_FLAGS=--xla_gpu_enable_command_buffer= (h100_jax_block_nocmdbuf), each with
# XLA_PYTHON_CLIENT_PREALLOCATE=false.
import os, sys, glob, shutil
import jax, jax.numpy as jnp
name = sys.argv[1]
D = "/tmp/rec"; os.makedirs(D, exist_ok=True)
B, T, C, H = 16, 256, 512, 8
def init(k):
    ks = jax.random.split(k, 6)
    n = lambda k, s: jax.random.normal(k, s) * 0.02
    return {"qkv": n(ks[0], (C, 3 * C)), "o": n(ks[1], (C, C)), "w1": n(ks[2], (C, 4 * C)), "w2": n(ks[3], (4 * C, C)),
            "head": n(ks[4], (C, 1000))}
def ln(x): return (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5)
def loss(p, x, y):
    b = lambda w: w.astype(jnp.bfloat16)
    h = ln(x).astype(jnp.bfloat16)
    q, k, v = jnp.split(h @ b(p["qkv"]), 3, -1)
    sh = lambda t: t.reshape(B, T, H, C // H).transpose(0, 2, 1, 3)
    a = jax.nn.softmax((sh(q) @ sh(k).transpose(0, 1, 3, 2)).astype(jnp.float32) / 8.0, -1).astype(jnp.bfloat16)
    o = (a @ sh(v)).transpose(0, 2, 1, 3).reshape(B, T, C) @ b(p["o"])
    x = x + o.astype(jnp.float32)
    m = jax.nn.gelu(ln(x).astype(jnp.bfloat16) @ b(p["w1"])) @ b(p["w2"])
    x = x + m.astype(jnp.float32)
    logits = (x.mean(1).astype(jnp.bfloat16) @ b(p["head"])).astype(jnp.float32)
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, 1000), -1))
@jax.jit
def train_step(p, x, y):
    l, g = jax.value_and_grad(loss)(p, x, y)
    return jax.tree_util.tree_map(lambda a, b: a - 1e-3 * b, p, g), l
key = jax.random.PRNGKey(1)
p = init(key); x = jax.random.normal(key, (B, T, C)); y = jnp.arange(B) % 1000
for _ in range(3): p, l = train_step(p, x, y)
l.block_until_ready()
prof = f"/tmp/jaxprof_{name}"
jax.profiler.start_trace(prof)
for i in range(6):
    with jax.profiler.TraceAnnotation("train_step"):
        p, l = train_step(p, x, y)
        l.block_until_ready()
jax.profiler.stop_trace()
for f in glob.glob(f"{prof}/**/*", recursive=True):
    if os.path.isfile(f):
        print(f, os.path.getsize(f))
        base = os.path.basename(f)
        if base.endswith(".xplane.pb"): shutil.copy(f, f"{D}/{name}.xplane.pb")
        if base.endswith(".trace.json.gz"): shutil.copy(f, f"{D}/{name}.trace.json.gz")
print(jax.devices(), os.environ.get("XLA_FLAGS"))
