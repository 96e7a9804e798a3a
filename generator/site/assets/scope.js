/* papersite: Material's head script (partials/javascripts/base.html in mkdocs-material 9.8.2),
   as a file every page shares instead of 0.3 KB written into each of ~48k pages at 12k papers.
   The site's root is two folders above this file (assets/papersite/). */
__md_scope=new URL("../..",document.currentScript.src),__md_hash=e=>[...e].reduce(((e,_)=>(e<<5)-e+_.charCodeAt(0)),0),__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem(t.pathname+"."+e)),__md_set=(e,_,t=localStorage,a=__md_scope)=>{try{t.setItem(a.pathname+"."+e,JSON.stringify(_))}catch(e){}}
