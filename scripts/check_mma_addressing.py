#!/usr/bin/env python3
"""check_mma_addressing.py: cl/mma.cl's LOOP_ADDR index arithmetic against the per-chunk and per-fragment
formulas it replaces, emulated for the FP64 default (128 x 64 x 16, 64 x 32 warp tiles, every transpose,
random sizes, leading dimensions and K ranges): the copies' global index, local index and bytes, and
the fragments' local indices as a base plus a fixed tile step. Prints the mismatches; exit 1 if any."""
import random
MWG,NWG,KWG,WM,WN,VW,ESIZE=128,64,16,64,32,2,8
NT=32*(MWG//WM)*(NWG//WN); MTILES=WM//16; NTILES=WN//8
def clamp(x,a,b): return max(a,min(b,x))
def swz(row,c,CPR,S):
    if CPR>=8: return row*CPR+(c^((row&(8//S-1))*S))
    q=row*CPR+c; return q^(((q>>3)&(8//S-1))*S)
bad=0
for TA in (0,1):
  for TB in (0,1):
    AG=MWG//VW if TA==0 else KWG//VW; BG=KWG//VW if TB==0 else NWG//VW
    AS=4 if TA==0 else 2; BS=2 if TB==0 else 4
    ACH=MWG*KWG//VW//NT; BCH=NWG*KWG//VW//NT
    assert NT%AG==0 and NT%BG==0
    for trial in range(300):
      M=random.randint(1,400); N=random.randint(1,400); K=random.randint(1,200)
      lda=random.randint(1,500)*2; ldb=random.randint(1,500)*2
      m0=random.randrange(0,M,1)//MWG*MWG; n0=random.randrange(0,N,1)//NWG*NWG
      kbeg=random.randrange(0,K+1)//KWG*KWG if random.random()<0.5 else 0; kend=K
      nk=(kend-kbeg+KWG-1)//KWG; nkf=(kend-kbeg)//KWG
      for tid in range(NT):
        for p in range(nkf):
          k0=kbeg+p*KWG
          # A original
          for l in range(ACH):
            q=tid+l*NT; r=q//AG; c=q%AG
            if TA==0: gm=m0+c*VW; gk=k0+r; v=clamp(M-gm,0,VW) if gk<kend else 0; gi=gm+gk*lda
            else: gm=m0+r; gk=k0+c*VW; v=clamp(kend-gk,0,VW) if gm<M else 0; gi=gk+gm*lda
            li=swz(r,c,AG,AS)*VW
            r0=tid//AG; cc=tid%AG; RS=NT//AG
            g0=(m0+cc*VW)+(kbeg+r0)*lda if TA==0 else (kbeg+cc*VW)+(m0+r0)*lda
            ks=KWG*lda if TA==0 else KWG
            ng=g0+p*ks+l*RS*lda; nv=clamp(M-(m0+cc*VW),0,VW) if TA==0 else (VW if m0+r0+l*RS<M else 0)
            nl=swz(r0+l*RS,cc,AG,AS)*VW
            if (nv!=v) or (nl!=li) or (v and ng!=gi): bad+=1
          for l in range(BCH):
            q=tid+l*NT; r=q//BG; c=q%BG
            if TB==0: gn=n0+r; gk=k0+c*VW; v=clamp(kend-gk,0,VW) if gn<N else 0; gi=gk+gn*ldb
            else: gn=n0+c*VW; gk=k0+r; v=clamp(N-gn,0,VW) if gk<kend else 0; gi=gn+gk*ldb
            li=swz(r,c,BG,BS)*VW
            r0=tid//BG; cc=tid%BG; RS=NT//BG
            g0=(kbeg+cc*VW)+(n0+r0)*ldb if TB==0 else (n0+cc*VW)+(kbeg+r0)*ldb
            ks=KWG if TB==0 else KWG*ldb
            ng=g0+p*ks+l*RS*ldb; nv=clamp(N-(n0+cc*VW),0,VW) if TB==1 else (VW if n0+r0+l*RS<N else 0)
            nl=swz(r0+l*RS,cc,BG,BS)*VW
            if (nv!=v) or (nl!=li) or (v and ng!=gi): bad+=1
      if trial>3: continue
    # fragments (k16: KSTEP 16)
    KSTEP=16
    AIDX=lambda r,col: swz(r,col//VW,AG,AS)*VW+col%VW
    BIDX=lambda r,col: swz(r,col//VW,BG,BS)*VW+col%VW
    ATS=lambda i: i*16*(1 if TA==0 else AG*VW)
    BTS=lambda j: (j>>1)*16*(BG*VW if TB==0 else 1)
    for tid in range(NT):
      lane=tid&31; warp=tid>>5; wm=warp%(MWG//WM); wn=warp//(MWG//WM); g=lane>>2; t=lane&3
      for kk in range(0,KWG,KSTEP):
        for h in range(KSTEP//2):
          for i in range(MTILES):
            m=wm*WM+i*16+g+(h&1)*8; k=kk+t+(h>>1)*4
            orig=AIDX(k,m) if TA==0 else AIDX(m,k)
            m0_=wm*WM+g+(h&1)*8
            new=(AIDX(k,m0_) if TA==0 else AIDX(m0_,k))+ATS(i)
            bad+= orig!=new
        for h in range(KSTEP//4):
          for j in range(NTILES):
            n=wn*WN+j*8+g; k=kk+t+h*4
            orig=BIDX(n,k) if TB==0 else BIDX(k,n)
            nj=wn*WN+(j&1)*8+g
            new=(BIDX(nj,k) if TB==0 else BIDX(k,nj))+BTS(j)
            bad+= orig!=new
print("mismatches:",bad)
raise SystemExit(1 if bad else 0)
