#!/usr/bin/env python3
"""check_mma_addressing.py: cl/mma.cl's LOOP_ADDR index arithmetic against the per-chunk and per-fragment
formulas it replaces, emulated for the FP64 default (128 x 64 x 16, 64 x 32 warp tiles, every transpose,
random sizes, leading dimensions and K ranges): the copies' global index, local index and bytes, and
the fragments' local indices as a base plus a fixed tile step; F64_LOOP's fragment pointers and
immediates, copies' local places and edge-tile sources. Prints the mismatches; exit 1 if any."""
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

# F64_LOOP: ROWS_APART (rows d apart keep one column's chunks d*CPR apart) for every layout; the
# fragments from one pointer per KEY plus STEP and the tile step, for several tiles; the copies'
# local places; an edge tile's copies outside op(X) read from the tile's first chunk on.
def rows_apart(d,CPR,S): return d%(8//S)==0 if CPR>=8 else (d*CPR)%(64//S)==0
for CPR in (1,2,4,8,16,32,64):
  for S in (1,2,4,8):
    for d in range(1,40):
      if rows_apart(d,CPR,S):
        bad+=sum(swz(r+d,c,CPR,S)!=swz(r,c,CPR,S)+d*CPR for r in range(64) for c in range(CPR))
def frags(MWG,NWG,KWG,WM,WN):
  global bad
  MT_=WM//16; NT_=WN//8; NTH=32*(MWG//WM)*(NWG//WN)
  for TA in (0,1):
    for TB in (0,1):
      ACPR=MWG//VW if TA==0 else KWG//VW; BCPR=KWG//VW if TB==0 else NWG//VW
      AS=4 if TA==0 else 2; BS=2 if TB==0 else 4
      AIDX=lambda r,col: swz(r,col//VW,ACPR,AS)*VW+col%VW
      BIDX=lambda r,col: swz(r,col//VW,BCPR,BS)*VW+col%VW
      ATS=lambda i: i*16*(1 if TA==0 else ACPR*VW)
      BTS=lambda j: (j>>1)*16*(BCPR*VW if TB==0 else 1)
      if TA==0:
        akey=lambda h: h&1 if rows_apart(4,ACPR,AS) else h
        astep=lambda h,kk: ((0 if akey(h)==h else (h>>1)*4)+kk)*ACPR*VW
      else:
        akey=lambda h: h&~1 if rows_apart(8,ACPR,AS) else h
        astep=lambda h,kk: (0 if akey(h)==h else (h&1)*8*ACPR*VW)+kk
      if TB==0:
        bkey=lambda h,jp: h*2 if rows_apart(8,BCPR,BS) else h*2+jp
        bstep=lambda h,jp,kk: (0 if bkey(h,jp)==h*2+jp else jp*8*BCPR*VW)+kk
      else:
        bkey=lambda h,jp: jp if rows_apart(4,BCPR,BS) else h*2+jp
        bstep=lambda h,jp,kk: ((0 if bkey(h,jp)==h*2+jp else h*4)+kk)*BCPR*VW
      for tid in range(NTH):
        lane=tid&31; warp=tid>>5; wm=warp%(MWG//WM); wn=warp//(MWG//WM); g=lane>>2; t=lane&3
        afp=[AIDX(t+(h>>1)*4,wm*WM+g+(h&1)*8) if TA==0 else AIDX(wm*WM+g+(h&1)*8,t+(h>>1)*4) for h in range(8)]
        bfp=[0]*8
        for h in range(4):
          for jp in range(2):
            n=wn*WN+jp*8+g; k=t+h*4; bfp[h*2+jp]=BIDX(n,k) if TB==0 else BIDX(k,n)
        for kk in range(0,KWG,16):
          for h in range(8):
            for i in range(MT_):
              m=wm*WM+i*16+g+(h&1)*8; k=kk+t+(h>>1)*4
              bad+=(AIDX(k,m) if TA==0 else AIDX(m,k))!=afp[akey(h)]+astep(h,kk)+ATS(i)
          for h in range(4):
            for j in range(NT_):
              n=wn*WN+j*8+g; k=kk+t+h*4
              bad+=(BIDX(n,k) if TB==0 else BIDX(k,n))!=bfp[bkey(h,j&1)]+bstep(h,j&1,kk)+BTS(j)
      # copies' local places: F64_DST against swz of each chunk's row
      for GCPR,CPR,S,PER in ((MWG//VW if TA==0 else KWG//VW,ACPR,AS,MWG*KWG//VW//NTH),
                             (KWG//VW if TB==0 else NWG//VW,BCPR,BS,NWG*KWG//VW//NTH)):
        RS=NTH//GCPR
        for tid in range(NTH):
          r0=tid//GCPR; c=tid%GCPR
          for l in range(PER):
            new=swz(r0,c,CPR,S)*VW+l*RS*CPR*VW if rows_apart(RS,CPR,S) else swz(r0+l*RS,c,CPR,S)*VW
            bad+=new!=swz(r0+l*RS,c,CPR,S)*VW
for tile in ((128,64,16,64,32),(128,128,16,64,32),(64,128,16,32,64),(128,64,32,64,32),(256,64,16,64,32)):
  frags(*tile)
# edge tiles: a chunk outside op(A) reads, as it steps, from the tile's first chunk (m0, kbeg + p KWG),
# inside A; a tile inside M and N has every chunk whole (the inner loop's 16-byte copies)
for trial in range(2000):
  M=random.randint(1,400); N=random.randint(1,400); K=random.randint(1,200)
  m0=random.randrange(0,M)//MWG*MWG; n0=random.randrange(0,N)//NWG*NWG
  kbeg=random.randrange(0,K+1)//KWG*KWG; nkf=(K-kbeg)//KWG
  for p in range(nkf):
    bad+= not (m0<M and n0<N and kbeg+p*KWG+KWG<=K)
  if m0+MWG<=M and n0+NWG<=N:
    for TA in (0,1):
      AG=MWG//VW if TA==0 else KWG//VW
      for tid in range(NT):
        for l in range(MWG*KWG//VW//NT):
          q=tid+l*NT; r=q//AG; c=q%AG
          bad+=(clamp(M-(m0+c*VW),0,VW) if TA==0 else (VW if m0+r<M else 0))!=VW
print("mismatches:",bad)
raise SystemExit(1 if bad else 0)
