# Line-by-line port of R posterior's .ess / .rhat / split_chains (convergence.R), direct autocovariance.
import json, math
def mean(x): return sum(x)/len(x)
def var(x):
    m=mean(x); return sum((v-m)**2 for v in x)/(len(x)-1)
def autocov(x):
    n=len(x); m=mean(x); d=[v-m for v in x]
    return [sum(d[i]*d[i+t] for i in range(n-t))/n for t in range(n)]
def split_chains(chains):
    n=len(chains[0]); half=n/2; out=[]
    for c in chains:
        out.append(c[:math.floor(half)]); out.append(c[math.ceil(half+1)-1:])
    return out
def ess(chains):
    m=len(chains); n=len(chains[0])
    acov=[autocov(c) for c in chains]
    chain_mean=[mean(c) for c in chains]
    mean_var=mean([a[0] for a in acov])*n/(n-1)
    var_plus=mean_var*(n-1)/n
    if m>1: var_plus+=var(chain_mean)
    rho=[0.0]*n
    t=0; even=1.0; rho[0]=even
    odd=1-(mean_var-mean([a[1] for a in acov]))/var_plus; rho[1]=odd
    while t < n-5 and not math.isnan(even+odd) and even+odd>0:
        t+=2
        even=1-(mean_var-mean([a[t] for a in acov]))/var_plus
        odd=1-(mean_var-mean([a[t+1] for a in acov]))/var_plus
        if even+odd>=0: rho[t]=even; rho[t+1]=odd
    max_t=t
    if even>0: rho[max_t]=even
    t=0
    while t<=max_t-4:
        t+=2
        if rho[t]+rho[t+1] > rho[t-2]+rho[t-1]:
            rho[t]=(rho[t-2]+rho[t-1])/2; rho[t+1]=rho[t]
    e=m*n
    tau=-1+2*sum(rho[:max_t])+rho[max_t]
    tau=max(tau,1/math.log10(e))
    return e/tau
def rhat(chains):
    m=len(chains); n=len(chains[0])
    vb=n*var([mean(c) for c in chains]); vw=mean([var(c) for c in chains])
    return math.sqrt((vb/vw+n-1)/n)
d=json.load(open('/tmp/ref.json')); ch=d['chains']
print(repr(ess(split_chains(ch))), repr(ess(ch)), repr(ess(split_chains([ch[0]]))), repr(ess(split_chains([d['anti']]))))
print(repr(rhat(split_chains(ch))), repr(rhat(ch)))
