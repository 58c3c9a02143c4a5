# last device call: assemble and check the model, wait for the build, run the cost benchmark as a non-root user
cd /tmp/q
mkdir -p qcache/models && cat parts/part1 parts/part2 parts/part3 parts/part4 parts/part5 parts/part6 parts/part7 parts/part8 > qcache/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf && rm -rf parts
sha256sum qcache/models/*.gguf | tee $OUT/sha256.txt
echo "build started $(cat build.start), waiting at $(date -u +%T)"
while pgrep -f no-build-isolation >/dev/null; do sleep 3; done; echo "build done by $(date -u +%T)"; grep -E "Successfully|ERROR|error:" build.log | tail -5; ls llama/llama_cpp/lib
cp build.log $OUT/build.log
export PYTHONPATH=/tmp/q/llama:/tmp/q/site:/tmp/q/repo/server:/tmp/q/repo/sandbox PYTHONUNBUFFERED=1 QUALM_CACHE_DIR=/tmp/q/qcache
id q >/dev/null 2>&1 || useradd -m q; chmod -R a+rwX /tmp/q
(while true; do nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader; sleep 2; done) > $OUT/nvidia-smi.txt 2>&1 &
nvidia-smi > $OUT/nvidia-smi-full.txt; lscpu | grep -E "Model name|^CPU\(s\)" >> $OUT/nvidia-smi-full.txt
R="runuser -u q -- env PYTHONPATH=$PYTHONPATH PYTHONUNBUFFERED=1 QUALM_CACHE_DIR=/tmp/q/qcache HOME=/home/q"
cd /tmp/q/repo
$R timeout ${T1:-330} python3 benchmarks/assess_cost.py --n-gpu-layers -1 2>&1 | grep -v "^llama\|^load\|^print_info\|^ggml\|^llm_load\|^init_\|^graph_\|^sched_\|^common_\|^set_\|^create_\|^\.\+$" | tee $OUT/bench-assess.txt

kill %1 2>/dev/null; date -u +%T
