set -x
mkdir -p /tmp/q && cp -r .dev/pkg /tmp/q/ && cp .dev/m0/part /tmp/q/m.gguf
rm -rf /tmp/q/repo && mkdir /tmp/q/repo && cp -r server sandbox results /tmp/q/repo/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/q/site /tmp/q/pkg/whl/*.whl
cd /tmp/q && tar xzf pkg/llama_cpp_python-0.3.36-slim.tar.gz
CMAKE_ARGS="-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF" CMAKE_BUILD_PARALLEL_LEVEL=16 setsid nohup python3 -m pip install --no-deps --no-build-isolation --no-index --target /tmp/q/llama ./llama_cpp_python-0.3.36 > /tmp/q/build.log 2>&1 < /dev/null &
sleep 3; nproc; nvidia-smi -L; python3 --version; ls -la /tmp/q
