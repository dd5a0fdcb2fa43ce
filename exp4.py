import grpc, time
ch = grpc.insecure_channel('127.0.0.1:47199')
grpc.channel_ready_future(ch).result(timeout=5)
m = ch.unary_unary('/x/y')
for n in (20000, 70000, 100000):
    t=time.time()
    try: m(b'', metadata=[('x-a','y'*n)], timeout=2)
    except grpc.RpcError as e: print(n, e.code(), e.details(), round(time.time()-t,2))
