# wait for the build, check the model, verify the libstdc++ preload, start calibrate + shards
cd /tmp/q
sha256sum m.gguf
while pgrep -f "no-build-isolation" >/dev/null; do sleep 5; done; tail -3 build.log; ls llama/llama_cpp/lib
export PYTHONPATH=/tmp/q/llama:/tmp/q/site:/tmp/q/repo/server:/tmp/q/repo/sandbox PYTHONUNBUFFERED=1
python3 -c "import scipy.stats, llama_cpp; llama_cpp.Llama(model_path='/tmp/q/m.gguf', n_gpu_layers=-1, verbose=False); print('PLAIN LOAD OK')"; echo "plain llama_cpp after scipy: rc=$?"
python3 -c "
import scipy.stats
from qualm.cli import _settings
from qualm.model import load_model
b = load_model(_settings('/tmp/q/m.gguf', -1, 4).model); print('QUALM LOAD OK', b.info)"; echo "qualm loader after scipy: rc=$?"
id q >/dev/null 2>&1 || useradd -m q
mkdir -p cal gcache && cp repo/results/qwen2.5-coder-0.5b/calibration/calibration.rows.jsonl cal/ && chmod -R a+rwX /tmp/q
runuser -u q -- env PYTHONPATH=$PYTHONPATH PYTHONUNBUFFERED=1 QUALM_CACHE_DIR=/tmp/q/qcache setsid nohup python3 -m qualm calibrate --model /tmp/q/m.gguf --n-gpu-layers -1 --threads 4 --dataset mbpp --limit 90 --out /tmp/q/cal/calibration.json > cal.log 2>&1 < /dev/null &
for s in 0 1 2; do QUALM_MODEL=/tmp/q/m.gguf QUALM_SHA=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 QUALM_KEY=339171848a51 QUALM_THREADS=4 setsid nohup python3 pkg/gpu_steps.py $s 3 pkg/jobs.json /tmp/q/gcache > shard$s.log 2>&1 < /dev/null & done
sleep 60; tail -3 cal.log shard*.log; nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv
