# Writes seed_lesson.ipynb (run from the repository root); the notebook is committed without outputs.
import nbformat as nbf
nb = nbf.v4.new_notebook()
md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb.cells = [
    md("# The seed lesson: `tile[32][32]` vs `tile[32][33]`\n\n"
       "A tiled transpose writes a 32x32 tile by rows and reads it by columns. In the column read lane *i* "
       "reads element `(i, c)`. With rows 32 floats apart every lane lands in bank `c`; with rows 33 apart "
       "lane *i* lands in bank `(i + c) % 32`. bankscope predicts what Nsight Compute counts."),
    code("import math\nimport bankscope as bs\n\n"
         "unpadded = bs.padded(32, 32)                  # __shared__ float tile[32][32]\n"
         "padded = bs.padded(32, 32, row_stride=33)     # __shared__ float tile[32][33]\n"
         "a = bs.cost(bs.column_read(unpadded))\n"
         "b = bs.cost(bs.column_read(padded))\n"
         "print('tile[32][32] column read:', a)\n"
         "print('tile[32][33] column read:', b)\n"
         "assert (a.wavefronts, a.bank_conflicts) == (32, 31)\n"
         "assert (b.wavefronts, b.bank_conflicts) == (1, 0)"),
    md("The bank view: lanes on top, the 32 banks below with the words each one serves stacked; colour is the "
       "wavefront (viridis, first dark). The unpadded tile stacks 32 words in bank 0."),
    code("bs.bank_view(bs.column_read(unpadded), title='tile[32][32]: column 0, 32 wavefronts')"),
    code("bs.bank_view(bs.column_read(padded), title='tile[32][33]: column 0, 1 wavefront')"),
    md("The logical tile and its physical layout, cells coloured by bank; the padding column is hatched."),
    code("bs.tile_view(padded, title='tile[32][33]')"),
    md("## The stride staircase\n\nWavefronts per column read against the row stride: for 4-byte floats it is "
       "`gcd(stride, 32)`. Wider elements are served in half- and quarter-warps; bytes share words."),
    code("sweep = bs.stride_sweep(['float', 'double', 'float4', 'char'])\n"
         "assert sweep.wavefronts['float'].tolist() == [math.gcd(s, 32) for s in range(1, 129)]\n"
         "sweep"),
    code("%matplotlib inline\nfig = sweep.figure()"),
    md("## The whole kernel\n\nThe shipped scenarios, per launch at n = 2048 (what `bankscope-cli predict` prints):"),
    code("import json\n"
         "totals = {}\n"
         "for name in ['seed_transpose_32x32', 'seed_transpose_32x33']:\n"
         "    r = bs.load_scenario(f'assets/scenarios/{name}.json').predict()\n"
         "    totals[name] = r['totals']['ld']\n"
         "    print(name, r['totals']['ld'])\n"
         "summary = {'wavefronts_32x32': a.wavefronts, 'wavefronts_32x33': b.wavefronts,\n"
         "           'float_staircase': sweep.wavefronts['float'][:16].tolist(), 'launch_ld': totals}\n"
         "print('SUMMARY ' + json.dumps(summary))"),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nbf.write(nb, "python/examples/seed_lesson.ipynb")
