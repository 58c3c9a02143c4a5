# first device call: tools, wheels, slim sdist; start the CUDA build in the background (setsid: outlives the call)
mkdir -p /tmp/q/parts && cp -r .dev/pkg /tmp/q/
rm -rf /tmp/q/repo && mkdir /tmp/q/repo && cp -r server sandbox benchmarks /tmp/q/repo/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/q/site /tmp/q/pkg/whl/*.whl
cd /tmp/q && tar xzf pkg/llama_cpp_python-0.3.36-slim.tar.gz
CMAKE_ARGS="-DGGML_CUDA=on -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF -DCMAKE_CUDA_ARCHITECTURES=90" \
  CMAKE_BUILD_PARALLEL_LEVEL=16 setsid nohup python3 -m pip install -v --no-deps --no-build-isolation --no-index --target /tmp/q/llama ./llama_cpp_python-0.3.36 > /tmp/q/build.log 2>&1 < /dev/null &
date -u +%T > /tmp/q/build.start
sleep 5; nproc; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; python3 --version; nvcc --version | tail -2; ls /tmp/q/site | head -30; tail -3 /tmp/q/build.log
